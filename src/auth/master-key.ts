import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { hashKey } from './key-hash.js';
import { generateKey } from './key-format.js';
import { insertSettingIfAbsent, readSetting } from './settings.repository.js';

const SETTING = 'master_key_hash';

/**
 * The hash of the master key. With MASTER_API_KEY set, that key is the master. Without it, the
 * first start of a fleet generates one and stores only its hash; the key itself comes back as
 * `generated`, once, for the caller to show. Later starts (and other processes racing the
 * first) find the stored hash.
 */
export async function ensureMasterKeyHash(db: Kysely<Database>, configured: string | undefined): Promise<{ hash: string; generated?: string }> {
  if (configured) return { hash: hashKey(configured) };
  const stored = await readSetting(db, SETTING);
  if (stored) return { hash: stored };
  const key = generateKey('master');
  if (await insertSettingIfAbsent(db, SETTING, hashKey(key))) return { hash: hashKey(key), generated: key };
  const winner = await readSetting(db, SETTING);
  if (!winner) throw new Error('master key hash vanished while starting');
  return { hash: winner };
}
