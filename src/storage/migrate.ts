import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, type Kysely, type MigrationResultSet } from 'kysely';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Migrations run against whatever schema exists at their point in history, hence Kysely<any>.
type AnyDb = Kysely<any>;

function migrator(db: AnyDb): Migrator {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }),
    // Each process of a fleet may start at once; Kysely serialises them with a lock in the database.
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Branches land in any order: a migration named before one a database already ran (teams'
    // 20261125T1400 merged after 20261126T1000) is run then, instead of refusing to start with
    // "corrupted migrations". Migrations touch tables of their own, so their order between
    // branches does not matter; within a branch their names keep it.
    allowUnorderedMigrations: true,
  });
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${cause}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Brings the schema to the newest version; returns the names of the migrations it applied. */
export async function migrateToLatest(db: AnyDb): Promise<string[]> {
  return unwrap(await migrator(db).migrateToLatest());
}

/** Undoes the newest migration (for operators rolling back a release). */
export async function migrateDown(db: AnyDb): Promise<string[]> {
  return unwrap(await migrator(db).migrateDown());
}
