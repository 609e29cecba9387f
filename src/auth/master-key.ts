import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { hashKey } from './key-hash.js';
import { generateKey } from './key-format.js';
import { insertSettingIfAbsent, readSetting } from './settings.repository.js';

const SETTING = 'master_key_hash';

/**
 * The hash of the master key. With MASTER_API_KEY set, that key is the master. Without it, the
 * first start of a fleet generates one, stores only its hash and prints the key once; later
 * starts (and other processes racing the first) find the stored hash.
 */
export async function ensureMasterKeyHash(db: Kysely<Database>, configured: string | undefined, logger: Logger): Promise<string> {
  if (configured) return hashKey(configured);
  const stored = await readSetting(db, SETTING);
  if (stored) return stored;
  const key = generateKey('master');
  if (await insertSettingIfAbsent(db, SETTING, hashKey(key))) {
    logger.warn({ master_api_key: key }, 'Generated a master API key. It is shown only this once: store it now, or set MASTER_API_KEY.');
    return hashKey(key);
  }
  const winner = await readSetting(db, SETTING);
  if (!winner) throw new Error('master key hash vanished while starting');
  return winner;
}
