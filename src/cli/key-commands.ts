import type { KeyInput, KeyService } from '../auth/key-service.js';
import type { KeyFilter, KeyRecord } from '../auth/keys.repository.js';
import { accountView } from '../auth/key-view.js';
import type { Principal } from '../auth/principal.js';
import { validateBody, validateQuery } from '../schema/request-validator.js';

/*
 * The commands of `npm run keys`. Each one turns its options into the body or query string the
 * matching HTTP route receives, validates it with the same schema, and calls the same KeyService
 * method, so the shell and the API accept and refuse the same things. The JSON each prints is
 * the `data` the route answers with.
 */

export interface Output {
  /** What the HTTP route answers with, for --json. */
  readonly json: unknown;
  readonly text: string;
}

export interface Session {
  readonly keys: KeyService;
  readonly actor: Principal;
}

export type Action = (session: Session) => Promise<Output>;

export type OptionValues = Readonly<Record<string, string | undefined>>;

export interface Command {
  /** Names of the positional arguments, in order; each is required. */
  readonly args: readonly string[];
  /** Options that take a value (--json and --help belong to every command). */
  readonly options: readonly string[];
  /** Validates the input before any connection is opened, and returns the work to do once connected. */
  prepare(values: OptionValues, args: readonly string[]): Action;
}

const SECRET_ONCE = 'This secret is shown only once and cannot be retrieved later; store it now:';
const KEY_COLUMNS = ['id', 'name', 'type', 'mode', 'status', 'key_hint', 'last_used_at', 'expires_at'];
const ACCOUNT_COLUMNS = ['id', 'name', 'plan', 'created_at'];

export const COMMANDS: Readonly<Record<string, Command>> = {
  create: {
    args: [],
    options: ['name', 'type', 'permissions', 'rate-limit', 'daily-limit', 'expires-at', 'description', 'account', 'mode'],
    prepare(v) {
      const input = validateBody<KeyInput>('auth-key.request', defined({
        name: v.name,
        type: v.type,
        permissions: v.permissions?.split(',').map((p) => p.trim()),
        rate_limit: numeric(v['rate-limit']),
        daily_limit: numeric(v['daily-limit']),
        expires_at: v['expires-at'],
        description: v.description,
        account_id: v.account,
        mode: v.mode,
      }));
      return async ({ keys, actor }) => {
        const { record, secret } = await keys.createKey(actor, input);
        return {
          json: { ...(await describeKey(keys, record)), key: secret },
          text: `Created ${record.type} ${record.mode} key ${record.id} "${record.name}" on account ${record.accountId}.\n${SECRET_ONCE}\n\n  ${secret}\n`,
        };
      };
    },
  },

  list: {
    args: [],
    options: ['account', 'type', 'mode', 'limit'],
    prepare(v) {
      // Over HTTP these are query parameters, which arrive as text: the query validator converts them alike.
      const query = validateQuery<{ account_id?: string; type?: KeyFilter['type']; mode?: KeyFilter['mode']; limit: number; offset: number }>(
        'auth-key-list.query',
        defined({ account_id: v.account, type: v.type, mode: v.mode, limit: v.limit }),
      );
      return async ({ keys, actor }) => {
        const records = await keys.listKeys(actor, {
          accountId: query.account_id, type: query.type, mode: query.mode, limit: query.limit, offset: query.offset,
        });
        const items = await keys.describe(records);
        return { json: { items, limit: query.limit, offset: query.offset }, text: table(KEY_COLUMNS, items) };
      };
    },
  },

  revoke: {
    args: ['ID'],
    options: ['at'],
    prepare(v, [id]) {
      const input = validateBody<{ revoke_at?: string }>('auth-key-revoke.request', defined({ revoke_at: v.at }));
      return async ({ keys, actor }) => {
        const record = await keys.revoke(actor, id!, input.revoke_at === undefined ? undefined : new Date(input.revoke_at));
        const view = await describeKey(keys, record);
        const text = view.status === 'revoked' ? `Key ${record.id} is revoked since ${view.revoked_at}.\n` : `Key ${record.id} will be revoked at ${view.revoke_at}.\n`;
        return { json: view, text };
      };
    },
  },

  rotate: {
    args: ['ID'],
    options: [],
    prepare(_v, [id]) {
      return async ({ keys, actor }) => {
        const { record, secret, oldKeyExpiresAt } = await keys.rotate(actor, id!);
        const until = oldKeyExpiresAt.toISOString();
        return {
          json: { ...(await describeKey(keys, record)), key: secret, new_key: secret, old_key_expires_at: until },
          text: `Rotated key ${record.id}; the previous secret keeps working until ${until}.\n${SECRET_ONCE}\n\n  ${secret}\n`,
        };
      };
    },
  },

  'accounts create': {
    args: [],
    options: ['name', 'plan'],
    prepare(v) {
      const input = validateBody<{ name: string; plan: string }>('account.request', defined({ name: v.name, plan: v.plan }));
      return async ({ keys }) => {
        const account = await keys.createAccount(input);
        return { json: accountView(account), text: `Created account ${account.id} "${account.name}" on plan ${account.plan}.\n` };
      };
    },
  },

  'accounts list': {
    args: [],
    options: ['limit'],
    prepare(v) {
      const query = validateQuery<{ limit: number; offset: number }>('account-list.query', defined({ limit: v.limit }));
      return async ({ keys }) => {
        const items = (await keys.listAccounts(query.limit, query.offset)).map(accountView);
        return { json: { items, limit: query.limit, offset: query.offset }, text: table(ACCOUNT_COLUMNS, items) };
      };
    },
  },

  'accounts set-plan': {
    args: ['ID', 'PLAN'],
    options: [],
    prepare(_v, [id, plan]) {
      // The route behind this is PATCH /v1/accounts/{id}, whose body schema this is.
      const input = validateBody<{ plan: string }>('account-update.request', { plan });
      return async ({ keys }) => {
        const account = await keys.updateAccount(id!, input);
        return { json: accountView(account), text: `Account ${account.id} is now on plan ${account.plan}.\n` };
      };
    },
  },
};

/** The key as GET /v1/auth/keys/{id} shows it: limits from its account's plan, rotation grace included. */
async function describeKey(keys: KeyService, key: KeyRecord): Promise<Record<string, unknown>> {
  const [described] = await keys.describe([key]);
  return described!;
}

/** Leaves out options not given, so the request is what a client sending only the others would send. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * A numeric option as JSON would carry it. Text that is no number is passed on unchanged, so the
 * schema refuses it naming the field and showing what was typed.
 */
function numeric(text: string | undefined): number | string | undefined {
  if (text === undefined || text.trim() === '') return text;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** Aligned columns with a header row; a null shows as "-" so every column keeps its place. */
function table(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns, ...rows.map((row) => columns.map((column) => String(row[column] ?? '-')))];
  const widths = columns.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  return lines.map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}
