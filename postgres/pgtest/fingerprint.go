package pgtest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// catalogQuery digests what emptying the tables would not restore: the
// database's schemas and every object in them, with their owners and
// grants, its extensions, large objects and settings. Names of objects,
// never their oids, which differ from clone to clone.
const catalogQuery = `
WITH ns AS (
	SELECT * FROM pg_namespace WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\_%'
)
SELECT md5(coalesce(string_agg(item, E'\n' ORDER BY item), '')) FROM (
	SELECT format('schema %s %s %s', nspname, nspowner::regrole, nspacl) FROM ns
	UNION ALL
	SELECT format('relation %s.%s %s %s %s %s', ns.nspname, c.relname, c.relkind, c.relpersistence, c.relowner::regrole, c.relacl)
	FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
	UNION ALL
	SELECT format('column %s.%s %s %s %s %s %s %s', ns.nspname, c.relname, a.attname,
		format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid))
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
	LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	WHERE a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT 'index ' || pg_get_indexdef(i.indexrelid)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN ns ON ns.oid = c.relnamespace
	UNION ALL
	SELECT format('constraint %s %s %s', co.conrelid::regclass, co.conname, pg_get_constraintdef(co.oid))
	FROM pg_constraint co JOIN ns ON ns.oid = co.connamespace
	UNION ALL
	SELECT format('function %s.%s(%s) %s %s', ns.nspname, p.proname, pg_get_function_identity_arguments(p.oid), p.prokind, md5(p.prosrc))
	FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
	UNION ALL
	SELECT format('type %s.%s %s', ns.nspname, t.typname, t.typtype) FROM pg_type t JOIN ns ON ns.oid = t.typnamespace
	UNION ALL
	SELECT format('enum %s %s %s', enumtypid::regtype, enumsortorder, enumlabel) FROM pg_enum
	UNION ALL
	SELECT format('view %s %s', c.oid::regclass, pg_get_viewdef(c.oid))
	FROM pg_class c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind IN ('v', 'm')
	UNION ALL
	SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
	UNION ALL
	SELECT format('rule %s %s', ev_class::regclass, rulename) FROM pg_rewrite WHERE rulename <> '_RETURN'
	UNION ALL
	SELECT format('policy %s %s', polrelid::regclass, polname) FROM pg_policy
	UNION ALL
	SELECT format('default privileges %s %s', defaclrole::regrole, defaclacl) FROM pg_default_acl
	UNION ALL
	SELECT format('extension %s %s', extname, extversion) FROM pg_extension
	UNION ALL
	SELECT format('event trigger %s', evtname) FROM pg_event_trigger
	UNION ALL
	SELECT format('publication %s', pubname) FROM pg_publication
	UNION ALL
	SELECT format('large object %s', oid) FROM pg_largeobject_metadata
	UNION ALL
	SELECT format('setting %s %s', setrole, setconfig) FROM pg_db_role_setting
	WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS catalog (item)`

// versionsQuery digests goose's record of the migrations applied, which
// a test may change to play a newer or an older release.
const versionsQuery = `SELECT md5(coalesce(string_agg(format('%s %s', version_id, is_applied), ',' ORDER BY id), ''))
FROM goose_db_version`

// fingerprintOf returns the digests of the catalog and of the migrations
// applied of the database conn is on. The second query fails when a test
// dropped goose's table; the first one's digest differs then too.
func fingerprintOf(ctx context.Context, conn *pgx.Conn) (catalog, versions string, err error) {
	if err := conn.QueryRow(ctx, catalogQuery).Scan(&catalog); err != nil {
		return "", "", fmt.Errorf("fingerprint: %w", err)
	}
	if err := conn.QueryRow(ctx, versionsQuery).Scan(&versions); err != nil {
		return catalog, "", fmt.Errorf("fingerprint: %w", err)
	}
	return catalog, versions, nil
}
