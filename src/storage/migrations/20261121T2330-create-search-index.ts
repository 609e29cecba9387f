import { sql, type Kysely } from 'kysely';

// The service's own inverted index (src/index/). Postings are clustered by
// (term_id, impact DESC, passage_id) so that a query reads each term's best passages first and
// stops early; the (passage_id, term_id) index serves exact scoring of candidates and
// deletion. Term ids belong to one mode, so postings need no mode column of their own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE index_documents (
    id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
    mode VARCHAR(8) NOT NULL,
    url VARCHAR(2048) NOT NULL,
    url_hash CHAR(64) CHARACTER SET ascii NOT NULL,
    domain VARCHAR(255) NOT NULL,
    domain_reversed VARCHAR(256) CHARACTER SET ascii NOT NULL COMMENT 'com.example.www. : subdomains share a prefix',
    title VARCHAR(1024) NULL,
    author VARCHAR(512) NULL,
    language VARCHAR(16) NULL,
    country_hint CHAR(2) NULL,
    published_at DATETIME(3) NULL,
    fetched_at DATETIME(3) NOT NULL,
    authority FLOAT NULL,
    content_hash CHAR(64) CHARACTER SET ascii NOT NULL,
    sim0 SMALLINT UNSIGNED NOT NULL,
    sim1 SMALLINT UNSIGNED NOT NULL,
    sim2 SMALLINT UNSIGNED NOT NULL,
    sim3 SMALLINT UNSIGNED NOT NULL,
    duplicate_of BIGINT UNSIGNED NULL,
    passage_count INT UNSIGNED NOT NULL,
    UNIQUE KEY index_documents_url (mode, url_hash),
    KEY index_documents_domain (mode, domain_reversed),
    KEY index_documents_language (mode, language),
    KEY index_documents_sim0 (mode, sim0),
    KEY index_documents_sim1 (mode, sim1),
    KEY index_documents_sim2 (mode, sim2),
    KEY index_documents_sim3 (mode, sim3),
    KEY index_documents_duplicate_of (duplicate_of)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`.execute(db);
  await sql`CREATE TABLE index_passages (
    id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
    document_id BIGINT UNSIGNED NOT NULL,
    position INT UNSIGNED NOT NULL,
    length INT UNSIGNED NOT NULL,
    text TEXT NOT NULL,
    KEY index_passages_document (document_id, position)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`.execute(db);
  // Binary collation: terms are already normalised by the analysis; 'é' and 'e' stay apart.
  await sql`CREATE TABLE index_terms (
    id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
    mode VARCHAR(8) CHARACTER SET ascii NOT NULL,
    term VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    df INT UNSIGNED NOT NULL,
    UNIQUE KEY index_terms_term (mode, term)
  ) ENGINE=InnoDB`.execute(db);
  await sql`CREATE TABLE index_postings (
    term_id INT UNSIGNED NOT NULL,
    impact SMALLINT UNSIGNED NOT NULL,
    passage_id INT UNSIGNED NOT NULL,
    tf SMALLINT UNSIGNED NOT NULL,
    length MEDIUMINT UNSIGNED NOT NULL,
    PRIMARY KEY (term_id, impact DESC, passage_id),
    KEY index_postings_passage (passage_id, term_id)
  ) ENGINE=InnoDB`.execute(db);
  await sql`CREATE TABLE index_stats (
    mode VARCHAR(8) CHARACTER SET ascii NOT NULL PRIMARY KEY,
    passages BIGINT UNSIGNED NOT NULL,
    total_length BIGINT UNSIGNED NOT NULL,
    reference_avgdl DOUBLE NOT NULL COMMENT 'the avgdl impacts are computed with, fixed at the first batch'
  ) ENGINE=InnoDB`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['index_stats', 'index_postings', 'index_terms', 'index_passages', 'index_documents']) {
    await sql`DROP TABLE ${sql.table(table)}`.execute(db);
  }
}
