package recorder_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/recorder"
)

var _ = Describe("recording into a side store an earlier run filled (Options.Store, --store)", func() {
	It("refuses before the agent runs, naming a session it holds and what to do", func() {
		dir := scaffold("spawn/filled-store")
		before := tree(dir)
		side := memory.New()
		Expect(side.Create(context.Background(), storetest.RootHeader("root"), nil)).To(Succeed())
		var ran atomic.Int64
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			ran.Add(1)
			return agent.Reference.Run(ctx, env)
		})
		opts.Store = func(context.Context) (persistence.Store, error) { return side, nil }
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError("recorder: the side store (Options.Store, record's --store): it already holds 1 session (such as root), an earlier run's: the recording creates its sessions there; give it an empty one (a new path) or delete the old; nothing ran and the fixture is unchanged"))
		Expect(ran.Load()).To(BeZero(), "the agent ran")
		Expect(tree(dir)).To(Equal(before))
	})
})

var _ = Describe("recording into a side store that does not open (Options.Store, --store)", func() {
	// recordWith records a scenario with the side store opener opens and
	// returns the error, checked to say that nothing ran or changed.
	var recordWith func(name string, opener func(context.Context) (persistence.Store, error)) error
	// record records it with the side store spec opens.
	record := func(name, spec string) error {
		GinkgoHelper()
		s, err := open.Parse(spec)
		Expect(err).NotTo(HaveOccurred())
		return recordWith(name, func(ctx context.Context) (persistence.Store, error) { return s.Store(ctx) })
	}
	recordWith = func(name string, opener func(context.Context) (persistence.Store, error)) error {
		GinkgoHelper()
		dir := scaffold(name)
		before := tree(dir)
		var ran atomic.Int64
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			ran.Add(1)
			return agent.Reference.Run(ctx, env)
		})
		opts.Store = opener
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(HavePrefix("recorder: the side store (Options.Store, record's --store) does not open: "))
		Expect(err.Error()).To(HaveSuffix("; nothing ran and the fixture is unchanged"))
		Expect(ran.Load()).To(BeZero(), "the agent ran")
		Expect(tree(dir)).To(Equal(before))
		return err
	}

	It("names a database whose folder does not exist, and says to create it", func() {
		db := filepath.Join(GinkgoT().TempDir(), "no-such-folder", "runs.db")
		err := record("spawn/store-no-folder", "sqlite:"+db)
		Expect(err).To(MatchError(ContainSubstring("sqlite: " + db + ": the folder " + filepath.Dir(db) + " does not exist: file does not exist; create the folder it names, or give a path in a folder that exists;")))
		Expect(err.Error()).NotTo(ContainSubstring("(14)"))
	})

	It("names a log folder holding a file that is not a session log, and says to give another or move it", func() {
		logs := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(logs, "notes.jsonl"), []byte("not a log\n"), 0o644)).To(Succeed())
		err := record("spawn/store-not-logs", "jsonl:"+logs)
		Expect(err).To(MatchError(ContainSubstring(filepath.Join(logs, "notes.jsonl") + ":1: ")))
		Expect(err).To(MatchError(ContainSubstring("; the store holds a file that is not an agentsnap session log (named above): give a new or empty folder, or move that file out of it;")))
	})

	It("names a file that is no database and keeps the store's own advice, with none about paths the CLI opens (record --store adds its own)", func() {
		file := filepath.Join(GinkgoT().TempDir(), "runs.db")
		Expect(os.WriteFile(file, []byte("hello, no database\n"), 0o644)).To(Succeed())
		err := record("spawn/store-not-sqlite", "sqlite:"+file)
		Expect(err).To(MatchError(ContainSubstring("sqlite: " + file + ": not a SQLite database")))
		Expect(err).To(MatchError(HaveSuffix("; give the path of an agentsnap database, or of a new file to create one; nothing ran and the fixture is unchanged")))
		Expect(err.Error()).NotTo(ContainSubstring("jsonl:DIR"))
	})

	It("says a user's function's own error (a database connection) and that nothing ran, with no advice about paths it did not open", func() {
		refused := errors.New("postgres: dial tcp 127.0.0.1:5432: connect: connection refused")
		err := recordWith("spawn/store-refused", func(context.Context) (persistence.Store, error) { return nil, refused })
		Expect(err).To(MatchError(refused))
		Expect(err).To(MatchError("recorder: the side store (Options.Store, record's --store) does not open: postgres: dial tcp 127.0.0.1:5432: connect: connection refused; nothing ran and the fixture is unchanged"))
	})
})
