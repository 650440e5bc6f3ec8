package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// query returns the rows of a query on the database at path as strings
// (NULL as "NULL"), read outside the backend.
func query(path, q string, args ...any) [][]string {
	GinkgoHelper()
	db, err := sql.Open("sqlite", path)
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	rows, err := db.Query(q, args...)
	Expect(err).NotTo(HaveOccurred(), q)
	defer rows.Close()
	cols, err := rows.Columns()
	Expect(err).NotTo(HaveOccurred())
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		Expect(rows.Scan(ptrs...)).To(Succeed())
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return out
}

func columns(path, table string) []string {
	GinkgoHelper()
	var names []string
	for _, r := range query(path, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table) {
		names = append(names, r[0])
	}
	return names
}

// foreignV4 makes a version-4 database at path as another tool would: the
// design's two tables, a session "dsh" of two events, journal mode
// journal, and with extra_members only when extra.
func foreignV4(path, journal string, extra bool) {
	GinkgoHelper()
	stmts := []string{"PRAGMA journal_mode = " + journal,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER, created_at INTEGER, cwd TEXT, parent_session TEXT,
			seed_length INTEGER, origin TEXT, delegation_depth INTEGER, agent_preset TEXT, parent_call_id TEXT, mode TEXT)`,
		`CREATE TABLE events (session_id TEXT, seq INTEGER, type TEXT, time INTEGER, data TEXT, source_event_seqs TEXT,
			surface_op TEXT, PRIMARY KEY (session_id, seq))`,
		`INSERT INTO sessions (id, version, created_at, delegation_depth) VALUES ('dsh', 0, 5, 0)`,
		`INSERT INTO events VALUES ('dsh', 0, 'x/note', 6, '{"note":1}', NULL, NULL)`,
		`INSERT INTO events VALUES ('dsh', 1, 'x/other', 7, NULL, '[0]', '"append"')`,
		`PRAGMA user_version = 4`}
	if extra {
		stmts = append(stmts, `CREATE TABLE extra_members (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
			members TEXT NOT NULL, PRIMARY KEY (session_id, seq))`)
	}
	rawExec(path, stmts...)
}

var _ = Describe("sqlite schema", func() {
	ctx := context.Background()
	var path string

	BeforeEach(func() { path = filepath.Join(GinkgoT().TempDir(), "sessions.db") })

	open := func() *persistence.Coordinator {
		GinkgoHelper()
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		return s
	}

	It("creates a version-4 database with the design's tables, in WAL mode", func() {
		Expect(open().Close()).To(Succeed())
		Expect(query(path, "PRAGMA user_version")).To(Equal([][]string{{"4"}}))
		Expect(query(path, "PRAGMA journal_mode")).To(Equal([][]string{{"wal"}}))
		Expect(columns(path, "sessions")).To(Equal([]string{"id", "version", "created_at", "cwd", "parent_session",
			"seed_length", "origin", "delegation_depth", "agent_preset", "parent_call_id", "mode"}))
		Expect(columns(path, "events")).To(Equal([]string{"session_id", "seq", "type", "time", "data", "source_event_seqs", "surface_op"}))
		Expect(query(path, "SELECT name FROM pragma_table_info('events') WHERE pk > 0 ORDER BY pk")).To(Equal([][]string{{"session_id"}, {"seq"}}))
		Expect(columns(path, "extra_members")).To(Equal([]string{"session_id", "seq", "members"}))
	})

	It("stores headers in columns, NULL where a log line omits the field, and JSON members verbatim as text", func() {
		s := open()
		fork := storetest.ForkHeader("root", "call_1", 8)
		spawn := storetest.SpawnHeader("root", "call_2")
		Expect(s.Create(ctx, fork, storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(s.Append(ctx, fork.ID, storetest.OddEvents(8))).To(Succeed())
		Expect(s.Create(ctx, spawn, nil)).To(Succeed())
		Expect(s.Append(ctx, spawn.ID, nil)).To(Succeed())
		Expect(s.Close()).To(Succeed())

		Expect(query(path, "SELECT id, version, created_at, cwd, parent_session, seed_length, origin, delegation_depth, agent_preset, parent_call_id, mode FROM sessions ORDER BY rowid")).To(Equal([][]string{
			{"root/call_1", "0", "1767225601000", "/work/project", "root", "8", "subagent", "1", "coder", "call_1", "fork"},
			{"root/call_2", "0", "1767225602000", "/work/project", "root", "NULL", "subagent", "1", "explorer", "call_2", "spawn"},
		}))
		Expect(query(path, "SELECT seq, type, typeof(data), data, source_event_seqs, surface_op FROM events WHERE seq >= 10 ORDER BY seq")).To(Equal([][]string{
			{"10", "session/title", "text", `{"title":"héllo \u2028 \"quoted\" <tag> & more"}`, "[]", `"append"`},
			{"11", "x/no-data", "null", "NULL", "[0,1]", `{"op":"replace","target":3}`},
			{"12", "x/null-data", "text", "null", "NULL", "NULL"},
		}))
		Expect(query(path, "SELECT session_id, seq, members FROM extra_members")).To(Equal([][]string{
			{"root/call_1", "9", `{"ignorable":true,"alpha":"a","seq0":5,"time0":"t","zeta":{"nested":[true,null]}}`},
		}), "only the line with members no column holds has a row")
	})

	It("reads a version-4 database another tool wrote, and gives it the extra table with the first write", func() {
		foreignV4(path, "DELETE", false)
		want := `{"type":"session","version":0,"id":"dsh","createdAt":5,"delegationDepth":0}` + "\n" +
			`{"type":"x/note","seq":0,"time":6,"data":{"note":1}}` + "\n" +
			`{"type":"x/other","seq":1,"time":7,"sourceEventSeqs":[0],"surfaceOp":"append"}` + "\n"

		ro, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		l, err := ro.Read(ctx, "dsh")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(want))
		Expect(ro.Close()).To(Succeed())
		Expect(query(path, "SELECT count(*) FROM sqlite_master WHERE name = 'extra_members'")).To(Equal([][]string{{"0"}}))

		s := open()
		l, err = s.Load(ctx, "dsh")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(want))
		Expect(query(path, "SELECT count(*) FROM sqlite_master WHERE name = 'extra_members'")).To(Equal([][]string{{"0"}}), "no table before the first write")
		Expect(s.Append(ctx, "dsh", []session.Event{{Type: "x/flag", Seq: 2, Time: 8, Ignorable: true}})).To(Succeed())
		Expect(query(path, "SELECT count(*) FROM sqlite_master WHERE name = 'extra_members'")).To(Equal([][]string{{"1"}}))
		Expect(query(path, "PRAGMA journal_mode")).To(Equal([][]string{{"wal"}}), "WAL from the first write on")
		l, err = s.Load(ctx, "dsh")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[2].Ignorable).To(BeTrue())
	})

	It("makes an existing database writable once when first writes race", func() {
		foreignV4(path, "DELETE", false)
		s := open()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				if i == 0 {
					_, errs[i] = s.Load(ctx, "dsh")
					return
				}
				h := storetest.RootHeader(fmt.Sprintf("r%d", i))
				if errs[i] = s.Create(ctx, h, []session.Event{{Type: "x/flag", Seq: 0, Time: 8, Ignorable: true}}); errs[i] == nil {
					errs[i] = s.Append(ctx, h.ID, nil) // the first write
				}
			}()
		}
		wg.Wait()
		for i, err := range errs {
			Expect(err).NotTo(HaveOccurred(), "call %d", i)
		}
		Expect(query(path, "SELECT count(*) FROM extra_members")).To(Equal([][]string{{"3"}}))
		l, err := s.Load(ctx, "r2")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Ignorable).To(BeTrue())
	})

	DescribeTable("leaves an existing database byte for byte as it was when it is opened and closed without a write",
		func(journal string, extra bool) {
			foreignV4(path, journal, extra)
			dir := filepath.Dir(path)
			// An old mtime, so a write in the same clock tick still shows.
			old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			Expect(os.Chtimes(path, old, old)).To(Succeed())
			before := snapshot(dir)
			Expect(before).To(HaveLen(1))

			s, err := sqlite.Open(ctx, path)
			Expect(err).NotTo(HaveOccurred())
			hs, err := s.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(hs).To(HaveLen(1))
			l, err := s.Load(ctx, "dsh")
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Events).To(HaveLen(2))
			Expect(s.Close()).To(Succeed())

			Expect(snapshot(dir)).To(Equal(before), "the same bytes, and no -wal, -shm or -journal file left")
			st, err := os.Stat(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.ModTime()).To(BeTemporally("==", old))
		},
		Entry("rollback journal, no extra_members", "DELETE", false),
		Entry("rollback journal, with extra_members", "DELETE", true),
		Entry("WAL, no extra_members", "WAL", false),
		Entry("WAL, with extra_members", "WAL", true),
	)

	It("fails to load a session whose seqs have a gap, naming the database and the session", func() {
		s := open()
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(s.Close()).To(Succeed())
		rawExec(path, "DELETE FROM events WHERE seq = 3")

		_, err := open().Load(ctx, "root")
		Expect(err).To(MatchError(session.ErrSeqGap))
		Expect(err.Error()).To(ContainSubstring(path))
		Expect(err.Error()).To(ContainSubstring("session root"))
		Expect(err.Error()).To(ContainSubstring("seq 4 where seq 3 belongs"))
	})

	It("reads, read-only, what a store that is still open has committed to its WAL", func() {
		s := open()
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(path + "-wal").To(BeAnExistingFile())

		ro, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		defer ro.Close()
		l, err := ro.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(8))
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(8, 2, "q", "b"))).To(Succeed())
		l, err = ro.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(16), "each read sees the latest commit")
	})

	It("refuses writes when opened read-only, and leaves the database as it was", func() {
		s := open()
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(s.Close()).To(Succeed())
		before := snapshot(filepath.Dir(path))

		b, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		h := storetest.RootHeader("other")
		Expect(b.Write(ctx, &persistence.Batch{Header: &h, New: true})).To(MatchError(persistence.ErrReadOnly))
		hs, err := b.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(Equal([]session.Header{storetest.RootHeader("root")}))
		Expect(b.Close()).To(Succeed())
		Expect(snapshot(filepath.Dir(path))).To(Equal(before))
	})
})
