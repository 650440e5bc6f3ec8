package open_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("open", func() {
	ctx := context.Background()

	DescribeTable("Parse reads the three forms of a store spec",
		func(spec string, want open.Spec) { Expect(open.Parse(spec)).To(Equal(want)) },
		Entry("a folder of logs", "jsonl:runs/today", open.Spec{Kind: open.JSONL, Path: "runs/today"}),
		Entry("a database", "sqlite:/tmp/x.db", open.Spec{Kind: open.SQLite, Path: "/tmp/x.db"}),
		Entry("a path with a colon", "sqlite:C:/runs/x.db", open.Spec{Kind: open.SQLite, Path: "C:/runs/x.db"}),
		Entry("memory", "memory:", open.Spec{Kind: open.Memory}),
	)

	DescribeTable("Parse refuses anything else and shows the forms",
		func(spec string) {
			_, err := open.Parse(spec)
			Expect(err).To(MatchError(open.ErrSpec))
			Expect(err.Error()).To(ContainSubstring("want jsonl:DIR, sqlite:PATH or memory:"))
		},
		Entry("a bare path", "runs/today"),
		Entry("an unknown kind", "postgres:db"),
		Entry("a kind without a path", "sqlite:"),
		Entry("memory with a path", "memory:x"),
	)

	// stored writes one session through the store spec names.
	stored := func(spec string) {
		GinkgoHelper()
		s, err := open.Store(ctx, spec)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(s.Close()).To(Succeed())
	}

	DescribeTable("Detect and ReadOnly read back what a store wrote",
		func(kind open.Kind, name string) {
			path := filepath.Join(GinkgoT().TempDir(), name)
			stored(string(kind) + ":" + path)
			Expect(open.Detect(path)).To(Equal(open.Spec{Kind: kind, Path: path}))
			src, err := open.ReadOnly(ctx, path)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(src.Close)
			hs, err := src.Sessions(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(hs).To(Equal([]session.Header{storetest.RootHeader("root")}))
			l, err := src.Read(ctx, "root")
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Events).To(HaveLen(8))
		},
		Entry("a folder of logs", open.JSONL, "logs"),
		Entry("a database", open.SQLite, "sessions.db"),
	)

	It("reads one log file as storage holding one session", func() {
		path := filepath.Join(GinkgoT().TempDir(), "one.jsonl")
		h := storetest.SpawnHeader("root", "call_1")
		Expect(os.WriteFile(path, session.Encode(&h, storetest.CompletedTurn(0, 1, "p", "a")), 0o644)).To(Succeed())
		Expect(open.Detect(path)).To(Equal(open.Spec{Kind: open.JSONL, Path: path}))
		src, err := open.ReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		hs, err := src.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(Equal([]session.Header{h}))
		_, err = src.Read(ctx, "other")
		Expect(err).To(MatchError(persistence.ErrUnknownSession))
		_, err = open.Store(ctx, "jsonl:"+path)
		Expect(err).To(MatchError(ContainSubstring("is a file; a jsonl store is a folder")))
	})

	DescribeTable("reads a .db file that is no log as a database, so its error says what it is, and leaves it as it was",
		func(name, content, says string) {
			path := filepath.Join(GinkgoT().TempDir(), name)
			Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
			Expect(open.Detect(path)).To(Equal(open.Spec{Kind: open.SQLite, Path: path}))
			_, err := open.ReadOnly(context.Background(), path)
			Expect(err).To(MatchError(ContainSubstring("sqlite: " + path + ": " + says)))
			Expect(err.Error()).NotTo(ContainSubstring("session header"))
			Expect(os.ReadFile(path)).To(Equal([]byte(content)))
		},
		Entry("an empty file", "x.db", "", "no database there (the file is missing or empty); give the path of a database agentsnap wrote"),
		Entry("a text file", "x.sqlite", "hello, not a database\n", `not a SQLite database (it starts with "hello, not a dat"`),
		Entry("random bytes", "x.DB", "\x93\x11\xfe\x00\x07garbage", "not a SQLite database"),
		Entry("a first page zeroed", "x.sqlite3", string(make([]byte, 4096)), `not a SQLite database (it starts with "\x00\x00`),
	)

	DescribeTable("reads a JSONL log named .db as a log",
		func(indent string) {
			path := filepath.Join(GinkgoT().TempDir(), "log.db")
			Expect(os.WriteFile(path, []byte(indent+"{\"type\":\"session\",\"version\":0,\"id\":\"root\",\"createdAt\":1}\n"), 0o644)).To(Succeed())
			Expect(open.Detect(path)).To(Equal(open.Spec{Kind: open.JSONL, Path: path}))
			src, err := open.ReadOnly(context.Background(), path)
			Expect(err).NotTo(HaveOccurred())
			defer src.Close()
			Expect(src.Sessions(context.Background())).To(HaveLen(1))
		},
		Entry("its header after a space", " "),
		Entry("its header after more white space than Detect reads", strings.Repeat(" \t", 12)),
	)

	It("creates nothing when it reads what does not exist", func() {
		dir := GinkgoT().TempDir()
		for _, p := range []string{filepath.Join(dir, "missing"), "jsonl:" + filepath.Join(dir, "missing"), "sqlite:" + filepath.Join(dir, "missing.db")} {
			_, err := open.ReadOnly(ctx, p)
			Expect(err).To(HaveOccurred(), p)
		}
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(BeEmpty())
	})

	// A jsonl store writes its logs into its folder itself: a folder of
	// other things (a fixtures category, a scenario folder) would get them
	// among its own files.
	DescribeTable("Store refuses a jsonl folder that holds what no store writes, naming the folder and the entry, and writes nothing",
		func(entry string, isDir bool) {
			dir := GinkgoT().TempDir()
			if isDir {
				Expect(os.Mkdir(filepath.Join(dir, entry), 0o755)).To(Succeed())
			} else {
				Expect(os.WriteFile(filepath.Join(dir, entry), []byte("{}\n"), 0o644)).To(Succeed())
			}
			_, err := open.Store(ctx, "jsonl:"+dir)
			Expect(err).To(MatchError("open: the folder " + dir + " holds " + entry + ", which is no session log of a jsonl store, and the store would write its logs among what it holds; give the jsonl store an empty or new folder"))
			Expect(persistence.OpenAdvice(err)).To(BeEmpty(), "the message says what to do")
			entries, err := os.ReadDir(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(HaveLen(1))
		},
		Entry("a scenario folder", "codeword", true),
		Entry("a fixture's scenario.json", "scenario.json", false),
		Entry("a hidden folder", ".git", true),
	)

	DescribeTable("Store opens a jsonl folder that is new, empty, or holds only what a store writes",
		func(prepare func(dir string) string) {
			dir := prepare(GinkgoT().TempDir())
			stored("jsonl:" + dir)
			s, err := open.Store(ctx, "jsonl:"+dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.List(ctx)).To(HaveLen(1))
			Expect(s.Close()).To(Succeed())
		},
		Entry("new", func(dir string) string { return filepath.Join(dir, "new") }),
		Entry("empty", func(dir string) string { return dir }),
		Entry("holding a hidden file", func(dir string) string {
			Expect(os.WriteFile(filepath.Join(dir, ".DS_Store"), nil, 0o644)).To(Succeed())
			return dir
		}),
	)

	It("refuses to write through storage opened read-only", func() {
		dir := GinkgoT().TempDir()
		stored("jsonl:" + dir)
		src, err := open.ReadOnly(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		b, ok := src.(persistence.Backend)
		Expect(ok).To(BeTrue())
		h := storetest.RootHeader("new")
		Expect(b.Write(ctx, &persistence.Batch{Header: &h, New: true})).To(MatchError(persistence.ErrReadOnly))
	})
})
