package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// treeFolder writes a scenario folder the way dsh and agentsnap write
// logs: a root with a header extra, unknown event types and members and a
// packed chunk row; a fork child with its seed; a spawn child. It returns
// the folder.
func treeFolder(dir string) string {
	GinkgoHelper()
	folder := filepath.Join(dir, "tree")
	Expect(os.Mkdir(folder, 0o755)).To(Succeed())
	root := []string{
		`{"type":"session","version":0,"id":"root","createdAt":1000,"cwd":"{{cwd}}","delegationDepth":0,"sandbox":{"mode":"workspace-write"}}`,
		`{"type":"agent/inbox/spliced","seq":0,"time":1001,"data":{"target":"next-turn","inserted":[]},"ignorable":true}`,
		`{"type":"turn/start","seq":1,"time":1002,"data":{"turn":1}}`,
		`{"type":"step/start","seq":2,"time":1003,"data":{"turn":1,"step":1}}`,
		`{"type":"text-chunks","seq0":3,"time0":1004,"data":{"turn":1,"step":1,"index":0,"dt":[2,3],"texts":["O","K","!"]}}`,
		`{"type":"assistant/message","seq":6,"time":1010,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"OK!"}]}},"sourceEventSeqs":[3,4,5],"surfaceOp":{"op":"replace","target":3}}`,
		`{"type":"step/end","seq":7,"time":1011,"data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","seq":8,"time":1012,"data":{"turn":1,"reason":{"kind":"completed"}},"meta":{"diffs":[]}}`,
		`{"type":"session/title","seq":9,"time":1013,"data":{"title":"héllo \u2028 <tag>"}}`,
	}
	write := func(name string, lines []string) {
		Expect(os.WriteFile(filepath.Join(folder, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
	}
	write(fixture.RootLog, root)
	fork := []string{`{"type":"session","version":0,"id":"root/call_f","createdAt":2000,"parentSession":"root","seedLength":9,"origin":"subagent","delegationDepth":1,"parentCallId":"call_f","mode":"fork"}`}
	fork = append(fork, root[1:]...)
	fork = append(fork,
		`{"type":"turn/start","seq":10,"time":2001,"data":{"turn":2,"trigger":"subagent"}}`,
		`{"type":"turn/end","seq":11,"time":2002,"data":{"turn":2,"reason":{"kind":"completed"}}}`)
	write(fixture.ChildLog(1), fork)
	write(fixture.ChildLog(2), []string{
		`{"type":"session","version":0,"id":"root/call_s","createdAt":3000,"parentSession":"root","origin":"subagent","delegationDepth":1,"parentCallId":"call_s","mode":"spawn"}`,
		`{"type":"turn/start","seq":0,"time":3001,"data":{"turn":1,"trigger":"subagent"}}`,
	})
	return folder
}

// logsIn reads the logs of a folder by file name, as logical JSONL.
func logsIn(folder string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	paths, err := session.FolderLogs(folder)
	Expect(err).NotTo(HaveOccurred())
	for _, p := range paths {
		l, err := session.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out[filepath.Base(p)] = storetest.Encoded(l)
	}
	return out
}

// dbSessions lists the session ids of a database in insertion order.
func dbSessions(path string) []string {
	GinkgoHelper()
	b, err := sqlite.OpenReadOnly(context.Background(), path)
	Expect(err).NotTo(HaveOccurred())
	defer b.Close()
	hs, err := b.Sessions(context.Background())
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

var _ = Describe("agentsnap convert", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("round-trips a scenario folder through a database, file for file, without loss", func() {
		folder := treeFolder(dir)
		before := logsIn(folder)

		r := cli(dir, nil, "convert", "tree", "tree.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(Equal("converted 3 sessions (23 events) from " + folder + " to SQLite database " + filepath.Join(dir, "tree.db") + "\n"))
		Expect(dbSessions(filepath.Join(dir, "tree.db"))).To(Equal([]string{"root", "root/call_f", "root/call_s"}))
		Expect(logsIn(folder)).To(Equal(before), "SRC is only read")

		r = cli(dir, nil, "convert", "tree.db", "back")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("to folder of JSONL logs"))
		Expect(logsIn(filepath.Join(dir, "back"))).To(Equal(before))

		raw, err := os.ReadFile(filepath.Join(dir, "back", fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring("text-chunks"), "packed rows are written expanded")
		Expect(string(raw)).To(ContainSubstring(`{"type":"agent/inbox/spliced","seq":0,"time":1001,"data":{"target":"next-turn","inserted":[]},"ignorable":true}`))
		Expect(string(raw)).To(HavePrefix(`{"type":"session","version":0,"id":"root","createdAt":1000,"cwd":"{{cwd}}","delegationDepth":0,"sandbox":{"mode":"workspace-write"}}`))
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			Expect(e.Name()).NotTo(HavePrefix("."), "no temporary file left behind")
		}
	})

	It("converts one log to a database and back to one log", func() {
		folder := treeFolder(dir)
		r := cli(dir, nil, "convert", filepath.Join("tree", fixture.ChildLog(1)), "one.db")
		Expect(r.code).To(Equal(0), r.stderr)
		r = cli(dir, nil, "convert", "one.db", "one.jsonl")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("to JSONL log"))
		want, err := session.ReadFile(filepath.Join(folder, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		got, err := session.ReadFile(filepath.Join(dir, "one.jsonl"))
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(got)).To(Equal(storetest.Encoded(want)))
		Expect(got.Header.SeedLength).To(Equal(9))
	})

	It("names files by session id when the sessions are not one tree", func() {
		folder := filepath.Join(dir, "two")
		Expect(os.Mkdir(folder, 0o755)).To(Succeed())
		for _, id := range []string{"alpha", "beta/1"} {
			h := storetest.RootHeader(id)
			Expect(os.WriteFile(filepath.Join(folder, strings.ReplaceAll(id, "/", "-")+".jsonl"), session.Encode(&h, nil), 0o644)).To(Succeed())
		}
		Expect(cli(dir, nil, "convert", "two", "two.db").code).To(Equal(0))
		r := cli(dir, nil, "convert", "two.db", "out")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(logsIn(filepath.Join(dir, "out"))).To(HaveKey("alpha.jsonl"))
		Expect(logsIn(filepath.Join(dir, "out"))).To(HaveKey("beta%2F1.jsonl"))
	})

	It("drops a torn last line with a warning", func() {
		folder := treeFolder(dir)
		f, err := os.OpenFile(filepath.Join(folder, fixture.ChildLog(2)), os.O_WRONLY|os.O_APPEND, 0)
		Expect(err).NotTo(HaveOccurred())
		_, err = f.WriteString(`{"type":"step/st`)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Close()).To(Succeed())
		r := cli(dir, nil, "convert", "tree", "tree.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(Equal("agentsnap convert: warning: " + filepath.Join(folder, fixture.ChildLog(2)) +
			":3: dropped a torn last line (16 bytes), what a crash in the middle of a write leaves\n"))
	})

	It("lets inspect read a database", func() {
		treeFolder(dir)
		Expect(cli(dir, nil, "convert", "tree", "tree.db").code).To(Equal(0))
		r := cli(dir, nil, "inspect", "tree.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("root/call_f"))
	})

	DescribeTable("refuses what it cannot do, and writes nothing",
		func(prepare func(), args []string, code int, says string) {
			treeFolder(dir)
			Expect(cli(dir, nil, "convert", "tree", "tree.db").code).To(Equal(0))
			prepare()
			before := snapshotDir(dir)
			r := cli(dir, nil, append([]string{"convert"}, args...)...)
			Expect(r.code).To(Equal(code))
			Expect(r.stderr).To(ContainSubstring(says))
			Expect(snapshotDir(dir)).To(Equal(before))
		},
		Entry("no DST", func() {}, []string{"tree"}, 2, "usage: agentsnap convert SRC DST"),
		Entry("a missing SRC", func() {}, []string{"nope", "x.db"}, 1, "agentsnap convert: nope: no such file or folder; give a session log, a folder of logs or a SQLite database to convert\n"),
		Entry("an existing database as DST", func() {}, []string{"tree", "tree.db"}, 1, "tree.db exists; convert writes a new database"),
		Entry("a folder that is not empty as DST", func() {}, []string{"tree.db", "tree"}, 1, "exists and is not empty"),
		Entry("one log file for many sessions", func() {}, []string{"tree.db", "all.jsonl"}, 1, "holds 3 sessions and "),
		Entry("a file as the DST folder of a database", func() {}, []string{"tree.db", "tree.db"}, 1, "tree.db exists and is not a folder; a database converts to a folder of logs (or one .jsonl file): give a new or empty folder\n"),
		Entry("a log's name as the DST database", func() {}, []string{"tree", "tree2.jsonl"}, 1, "tree2.jsonl ends in .jsonl, but session logs convert to a SQLite database: give DST another name, such as "),
		Entry("a database of another schema version", func() {
			db, err := sql.Open("sqlite", filepath.Join(dir, "old.db"))
			Expect(err).NotTo(HaveOccurred())
			_, err = db.Exec("CREATE TABLE t (x); PRAGMA user_version = 3")
			Expect(err).NotTo(HaveOccurred())
			Expect(db.Close()).To(Succeed())
		}, []string{"old.db", "out"}, 1, "the database has user_version 3, this agentsnap reads and writes version 4 only, and there is no migration"),
	)

	// CI runs as root, which reads any file: unprivileged.Do drops that.
	It("says to fix the permissions of a SRC this user may not read, and writes nothing", func() {
		treeFolder(dir)
		for _, src := range []string{"tree", "tree/session.jsonl"} {
			log := filepath.Join(dir, "tree/session.jsonl")
			Expect(os.Chmod(log, 0)).To(Succeed())
			var r result
			Expect(unprivileged.Do(func() error { r = cli(dir, nil, "convert", src, "out.db"); return nil })).To(Succeed())
			Expect(os.Chmod(log, 0o644)).To(Succeed())
			Expect(r.code).To(Equal(exitBadData))
			Expect(r.stderr).To(HaveSuffix(log + ": permission denied; make it readable by this user (fix its permissions)\n"))
			Expect(filepath.Join(dir, "out.db")).NotTo(BeAnExistingFile())
		}
	})
})

// snapshotDir is every file under dir with its content.
func snapshotDir(dir string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	Expect(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})).To(Succeed())
	return out
}

var _ = Describe("agentsnap convert, nothing to convert", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	DescribeTable("refuses a source without sessions, writes nothing and exits 1",
		func(prepare func() string, dst string) {
			src := prepare()
			before := snapshotDir(dir)
			r := cli(dir, nil, "convert", src, dst)
			Expect(r.code).To(Equal(exitBadData))
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(Equal("agentsnap convert: " + filepath.Join(dir, src) + " holds no sessions; nothing to convert, so nothing was written: give a session log, a folder of session logs (*.jsonl) or a database that holds sessions\n"))
			Expect(snapshotDir(dir)).To(Equal(before))
			_, err := os.Lstat(filepath.Join(dir, dst))
			Expect(err).To(MatchError(os.ErrNotExist))
		},
		Entry("an empty folder", func() string {
			Expect(os.Mkdir(filepath.Join(dir, "empty"), 0o755)).To(Succeed())
			return "empty"
		}, "out.db"),
		Entry("a folder of other files", func() string {
			Expect(os.Mkdir(filepath.Join(dir, "notes"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "notes", "a.txt"), []byte("hi\n"), 0o644)).To(Succeed())
			return "notes"
		}, "out.db"),
		Entry("a database without sessions", func() string {
			db, err := sqlite.OpenBackend(context.Background(), filepath.Join(dir, "none.db"))
			Expect(err).NotTo(HaveOccurred())
			Expect(db.Close()).To(Succeed())
			return "none.db"
		}, "out"),
	)

	It("counts one session and one event in the singular", func() {
		h := storetest.RootHeader("solo")
		ev, err := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "solo.jsonl"), session.Encode(&h, []session.Event{ev}), 0o644)).To(Succeed())
		r := cli(dir, nil, "convert", "solo.jsonl", "solo.db")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(Equal("converted 1 session (1 event) from " + filepath.Join(dir, "solo.jsonl") + " to SQLite database " + filepath.Join(dir, "solo.db") + "\n"))
	})
})
