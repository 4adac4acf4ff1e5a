import { MigrationInterface, QueryRunner } from 'typeorm';
import { runStatements } from '../dialect';

/**
 * A catalog page's JSON, kept in the rows it comes from. A page of 1,000
 * nodes read 42 columns per node, and handing 42,000 values from the driver
 * to JavaScript, then writing each as JSON, was most of the page's time
 * (SQLite at 50,000 nodes: about 9 ms of values and 5 ms of writing, against
 * 2 ms for the lookups themselves). Now each row carries its reply's text,
 * written by triggers in the same statement as any change to a column it
 * shows, so a page reads a few values per node (see nodeListText):
 *
 * - `nodes.reply_head`: the node's reply (toNodeDto) from its opening brace
 *   to `github_stars`, without the closing brace. What follows is written
 *   per page: `rating` (the databases' text for a fraction is not
 *   JavaScript's), `created_at`, the publisher (read once per page) and the
 *   latest version.
 * - `node_versions.reply_json`: the version's whole reply (toNodeVersionDto).
 *
 * The fields below are toNodeDto's and toNodeVersionDto's, in their order,
 * as JSON.stringify writes them: a NULL column is left out (docs/api-rules.md §6),
 * JSON columns (simple-json) go in as stored, times are UTC ISO text with
 * milliseconds. test/node-list-text.e2e-spec.ts compares a page with each
 * node's own GET on both databases, so a field added to the replies needs a
 * migration that rewrites these triggers.
 */

type Kind = 'text' | 'optionalText' | 'json' | 'optionalJson' | 'integer' | 'boolean' | 'time';
type Field = readonly [key: string, column: string, kind: Kind];

const COMPATIBILITY: readonly Field[] = [
  ['supported_os', 'supported_os', 'json'],
  ['supported_accelerators', 'supported_accelerators', 'json'],
  ['supported_app_version', 'supported_app_version', 'optionalText'],
  ['supported_app_frontend_version', 'supported_app_frontend_version', 'optionalText'],
  ['tags', 'tags', 'json'],
  ['tags_admin', 'tags_admin', 'json'],
];

const NODE_HEAD: readonly Field[] = [
  ['id', 'id', 'text'],
  ['name', 'name', 'text'],
  ['description', 'description', 'optionalText'],
  ['author', 'author', 'optionalText'],
  ['category', 'category', 'optionalText'],
  ['license', 'license', 'optionalText'],
  ['icon', 'icon', 'optionalText'],
  ['banner_url', 'banner_url', 'optionalText'],
  ['repository', 'repository', 'optionalText'],
  ...COMPATIBILITY,
  ['preempted_app_node_names', 'preempted_app_node_names', 'json'],
  ['translations', 'translations', 'optionalJson'],
  ['status', 'status', 'text'],
  ['status_detail', 'status_detail', 'optionalText'],
  ['search_ranking', 'search_ranking', 'integer'],
  ['downloads', 'downloads', 'integer'],
  ['github_stars', 'github_stars', 'integer'],
];

const VERSION: readonly Field[] = [
  ['id', 'id', 'text'],
  ['node_id', 'node_id', 'text'],
  ['version', 'version', 'text'],
  ['changelog', 'changelog', 'optionalText'],
  ['dependencies', 'dependencies', 'json'],
  ['deprecated', 'deprecated', 'boolean'],
  ['downloadUrl', 'download_url', 'optionalText'],
  ['status', 'status', 'text'],
  ['status_reason', 'status_reason', 'optionalText'],
  ['app_node_extract_status', 'app_node_extract_status', 'optionalText'],
  ...COMPATIBILITY,
  ['createdAt', 'created_at', 'time'],
];

interface Target {
  table: string;
  column: string;
  fields: readonly Field[];
  /** Whether the text closes its object (a node's goes on with fields written per page). */
  closed: boolean;
}

const TARGETS: readonly Target[] = [
  { table: 'nodes', column: 'reply_head', fields: NODE_HEAD, closed: false },
  { table: 'node_versions', column: 'reply_json', fields: VERSION, closed: true },
];

/** Both databases write a string as JSON.stringify does (checked over every code point); they differ in names. */
interface Spelling {
  quote: (value: string) => string;
  isoTime: (value: string) => string;
}

const SQLITE: Spelling = {
  quote: (value) => `json_quote(${value})`,
  isoTime: (value) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${value})`,
};

const POSTGRES: Spelling = {
  quote: (value) => `to_json(${value})::text`,
  isoTime: (value) => `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
};

/** The SQL of a target's text, from its columns as `ref` names them. */
function replyText({ fields, closed }: Target, { quote, isoTime }: Spelling, ref: (column: string) => string): string {
  const parts = fields.map(([key, column, kind], position) => {
    const prefix = `'${position === 0 ? '{' : ','}"${key}":'`;
    const value = ref(column);
    switch (kind) {
      case 'text':
        return `${prefix} || ${quote(value)}`;
      case 'optionalText':
        return `CASE WHEN ${value} IS NULL THEN '' ELSE ${prefix} || ${quote(value)} END`;
      case 'json':
        return `${prefix} || ${value}`;
      case 'optionalJson':
        // A stored JSON null is left out too, as toNodeDto leaves it out.
        return `CASE WHEN ${value} IS NULL OR ${value} = 'null' THEN '' ELSE ${prefix} || ${value} END`;
      case 'integer':
        return `${prefix} || CAST(${value} AS TEXT)`;
      case 'boolean':
        return `${prefix} || CASE WHEN ${value} THEN 'true' ELSE 'false' END`;
      case 'time':
        return `${prefix} || '"' || ${isoTime(value)} || '"'`;
    }
  });
  return [...parts, ...(closed ? [`'}'`] : [])].join(' || ');
}

const columnList = ({ fields }: Target) => [...new Set(fields.map(([, column]) => `"${column}"`))].join(', ');

export class ReplyText1764800000000 implements MigrationInterface {
  name = 'ReplyText1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    const spelling = postgres ? POSTGRES : SQLITE;
    for (const target of TARGETS) {
      const { table, column } = target;
      const ofRow = replyText(target, spelling, (name) => `"${name}"`);
      const statements = [`ALTER TABLE "${table}" ADD COLUMN "${column}" text`];
      if (postgres) {
        const ofNew = replyText(target, spelling, (name) => `NEW."${name}"`);
        statements.push(
          // Rows up to 8160 bytes (almost all) keep it uncompressed in the row rather than in TOAST: a page reads it from every row.
          `ALTER TABLE "${table}" SET (toast_tuple_target = 8160)`,
          `CREATE FUNCTION "${table}_${column}"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              NEW."${column}" := ${ofNew};
              RETURN NEW;
            END $$`,
          `CREATE TRIGGER "${table}_${column}" BEFORE INSERT OR UPDATE OF ${columnList(target)} ON "${table}"
            FOR EACH ROW EXECUTE FUNCTION "${table}_${column}"()`,
        );
      } else {
        // SQLite's triggers cannot change the row being written, so they write the text right after it.
        const write = `UPDATE "${table}" SET "${column}" = ${ofRow} WHERE rowid = new.rowid;`;
        statements.push(
          `CREATE TRIGGER "${table}_${column}_insert" AFTER INSERT ON "${table}" BEGIN ${write} END`,
          `CREATE TRIGGER "${table}_${column}_update" AFTER UPDATE OF ${columnList(target)} ON "${table}" BEGIN ${write} END`,
        );
      }
      statements.push(`UPDATE "${table}" SET "${column}" = ${ofRow}`);
      await runStatements(queryRunner, statements);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    for (const { table, column } of TARGETS) {
      await runStatements(
        queryRunner,
        postgres
          ? [
              `DROP TRIGGER "${table}_${column}" ON "${table}"`,
              `DROP FUNCTION "${table}_${column}"()`,
              `ALTER TABLE "${table}" RESET (toast_tuple_target)`,
              `ALTER TABLE "${table}" DROP COLUMN "${column}"`,
            ]
          : [`DROP TRIGGER "${table}_${column}_insert"`, `DROP TRIGGER "${table}_${column}_update"`, `ALTER TABLE "${table}" DROP COLUMN "${column}"`],
      );
    }
  }
}
