/** SQL of dashboards: one row each, owned by a key's account and mode or by the master key. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, DashboardsTable } from '../storage/schema.js';
import { withNamedLock } from '../storage/named-lock.js';

type Db = Kysely<Database>;
export type DashboardRow = Selectable<DashboardsTable>;

/** Whose dashboards these are: the caller's account id (or 'master') and mode. */
export interface DashboardOwner {
  owner: string;
  ownerMode: string;
}

/**
 * Stores a dashboard unless its owner already has `limit`; then returns how many it has.
 * Creations of one owner take turns on a named lock (server-wide, so the database's name is in
 * it), so concurrent ones cannot both take the last place.
 */
export async function insertDashboardWithin(db: Db, row: DashboardRow, limit: number): Promise<{ inserted: true } | { inserted: false; count: number }> {
  return withNamedLock(db, `dashboards:${row.owner}:${row.owner_mode}`, async (conn) => {
    const { count } = await conn.selectFrom('dashboards').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('owner', '=', row.owner).where('owner_mode', '=', row.owner_mode).executeTakeFirstOrThrow();
    if (Number(count) >= limit) return { inserted: false as const, count: Number(count) };
    await conn.insertInto('dashboards').values(row).execute();
    return { inserted: true as const };
  });
}

export async function findDashboard(db: Db, id: string): Promise<DashboardRow | undefined> {
  return db.selectFrom('dashboards').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of an owner's dashboards, oldest first, and how many it has in all. */
export async function listDashboards(db: Db, { owner, ownerMode }: DashboardOwner, limit: number, offset: number): Promise<{ rows: DashboardRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.selectFrom('dashboards').selectAll().where('owner', '=', owner).where('owner_mode', '=', ownerMode)
      .orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('dashboards').select((eb) => eb.fn.countAll<number>().as('total'))
      .where('owner', '=', owner).where('owner_mode', '=', ownerMode).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.total) };
}

/** Replaces a dashboard's name, scope and definition; false when it no longer exists. */
export async function replaceDashboard(db: Db, id: string, changes: Pick<DashboardRow, 'name' | 'account_id' | 'mode' | 'definition' | 'updated_at'>): Promise<boolean> {
  const result = await db.updateTable('dashboards').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteDashboard(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('dashboards').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
