package jsonl_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// syncLog records every fsync a backend asks for.
type syncLog struct {
	mu    sync.Mutex
	files map[string]int64 // file -> its size when last synced
	steps []string
}

func watchSyncs(b *jsonl.Backend) *syncLog {
	l := &syncLog{files: map[string]int64{}}
	b.SetSyncHooks(func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		l.mu.Lock()
		l.files[f.Name()] = st.Size()
		l.steps = append(l.steps, "file "+filepath.Base(f.Name()))
		l.mu.Unlock()
		return f.Sync()
	}, func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		l.mu.Lock()
		l.steps = append(l.steps, "dir holding "+strings.Join(names, ","))
		l.mu.Unlock()
		return atomicfile.SyncDir(dir)
	})
	return l
}

var _ = Describe("jsonl durability", func() {
	ctx := context.Background()
	var dir, path string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "root.jsonl")
	})

	open := func(opts ...jsonl.Option) (*jsonl.Backend, *persistence.Coordinator) {
		GinkgoHelper()
		b, err := jsonl.NewBackend(dir, opts...)
		Expect(err).NotTo(HaveOccurred())
		c, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		return b, c
	}

	It("syncs a new file before it gets its name, then the folder", func() {
		b, c := open()
		syncs := watchSyncs(b)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(syncs.steps).To(HaveLen(2))
		Expect(syncs.steps[0]).To(MatchRegexp(`^file \.root\.jsonl\.tmp-\d+$`), "the temporary file is synced first")
		Expect(syncs.steps[1]).To(ContainSubstring("root.jsonl"), "then the folder, once the file has its name")
		st, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(syncs.files).To(ContainElement(st.Size()), "the whole file was synced")
	})

	It("syncs every batch before Append returns", func() {
		b, c := open()
		syncs := watchSyncs(b)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		for turn := range 4 {
			Expect(c.Append(ctx, "root", storetest.CompletedTurn(int64(8*turn), turn+1, "p", "a"))).To(Succeed())
			st, err := os.Stat(path)
			Expect(err).NotTo(HaveOccurred())
			if turn > 0 {
				Expect(syncs.files).To(HaveKeyWithValue(path, st.Size()), "after batch %d", turn)
			}
		}
	})

	It("does not sync with NoSync", func() {
		b, c := open(jsonl.NoSync())
		syncs := watchSyncs(b)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(Succeed())
		Expect(syncs.steps).To(BeEmpty())
	})

	It("recovers from a crash anywhere in a batch's write", func() {
		h := storetest.RootHeader("root")
		durable := storetest.CompletedTurn(0, 1, "say OK", "OK")
		started, finished := storetest.ToolTurn(8, 2)
		lost := slices.Concat(started, finished)
		base := session.Encode(&h, durable)
		var written []byte
		for i := range lost {
			written = session.AppendEvent(written, &lost[i])
		}

		for _, cut := range cutPoints(written) {
			data := slices.Concat(base, written[:cut])
			Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
			// A line cut just before its newline is whole: it reads as an event.
			survived := bytes.Count(written[:cut], []byte("\n"))
			torn := cut > 0 && written[cut-1] != '\n'
			if written[cut] == '\n' {
				survived, torn = survived+1, false
			}

			_, c := open(jsonl.NoSync())
			l, err := c.Load(ctx, "root")
			Expect(err).NotTo(HaveOccurred(), "cut at byte %d", cut)
			Expect(l.Torn != nil).To(Equal(torn), "cut at byte %d", cut)
			kept := slices.Concat(durable, lost[:survived])
			Expect(storetest.Encoded(l)).To(Equal(storetest.Encoded(&session.Log{Header: h, Events: append(kept, persistence.Closers(kept)...)})), "cut at byte %d", cut)
			Expect(os.ReadFile(path)).To(Equal(data), "Load leaves the file alone (cut at byte %d)", cut)

			next := storetest.CompletedTurn(int64(len(l.Events)), 3, "again", "fine")
			Expect(c.Append(ctx, "root", next)).To(Succeed(), "cut at byte %d", cut)
			after, err := session.ReadFile(path)
			Expect(err).NotTo(HaveOccurred(), "cut at byte %d", cut)
			Expect(after.Torn).To(BeNil())
			Expect(storetest.Encoded(after)).To(Equal(storetest.Encoded(&session.Log{Header: h, Events: append(l.Events, next...)})), "cut at byte %d", cut)
			Expect(c.Close()).To(Succeed())
		}
	})
})

// cutPoints returns where in written a crash is tried: for every line, its
// first byte, its second, its middle and its newline (the line then is
// whole but unterminated).
func cutPoints(written []byte) []int {
	var cuts []int
	for start := 0; start < len(written); {
		end := start + bytes.IndexByte(written[start:], '\n')
		cuts = append(cuts, start, start+1, (start+end)/2, end)
		start = end + 1
	}
	return cuts
}
