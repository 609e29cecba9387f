import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export async function readSetting(db: Kysely<Database>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('service_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Inserts the value unless one is already stored; returns true when this call stored it. */
export async function insertSettingIfAbsent(db: Kysely<Database>, name: string, value: string): Promise<boolean> {
  const result = await db
    .insertInto('service_settings')
    .values({ name, value, updated_at: new Date() })
    .ignore()
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
