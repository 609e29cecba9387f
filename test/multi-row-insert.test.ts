import { expect } from 'chai';
import { format } from 'mysql2';
import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler } from 'kysely';
import { literalList, multiRowInsert } from '../src/storage/multi-row-insert.js';

/** A Kysely that only compiles. */
const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new MysqlAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new MysqlIntrospector(kysely),
    createQueryCompiler: () => new MysqlQueryCompiler(),
  },
});
const text = (builder: ReturnType<typeof multiRowInsert>) => builder.compile(db).sql;

describe('multi-row statements of literal values', () => {
  it('write every value as mysql2 would send it as a parameter, bytes in hex', () => {
    const bytes = Uint8Array.of(0, 1, 0xab, 0xff);
    const row = [7, "l'eau", bytes, null] as const;
    const sql = text(multiRowInsert('t', ['a', 'b', 'c', 'd'], [row, [8, 'x', new Uint8Array(), null]]));
    expect(sql).to.equal(`INSERT INTO t (a, b, c, d) VALUES (${format('?,?,?,?', [7, "l'eau", Buffer.from(bytes), null])}),(8,'x',X'',NULL)`);
    // A view into a larger buffer writes its own bytes only.
    const view = new Uint8Array(Uint8Array.of(9, 9, 1, 2, 9).buffer, 2, 2);
    expect(text(multiRowInsert('t', ['c'], [[view]]))).to.equal("INSERT INTO t (c) VALUES (X'0102')");
  });

  it('write lists for IN (…), NULL for an empty one', () => {
    expect(literalList([3, 1, 2])).to.equal('3,1,2');
    expect(literalList(['a', "b'c"])).to.equal(format('?,?', ['a', "b'c"]));
    expect(literalList([])).to.equal('NULL');
  });
});
