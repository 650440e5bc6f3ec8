package recorder_test

import (
	"context"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// scaffold creates fixtures/CATEGORY/NAME from the scaffold's example in a
// temporary tree and returns its folder.
func scaffold(name string) string {
	dir, err := fixture.Scaffold(filepath.Join(GinkgoT().TempDir(), "fixtures"), name)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// recorded scaffolds and records a fixture, returning its folder and the
// tree of files a later failed recording must leave as it is.
func recorded(name string) (string, map[string]string) {
	dir := scaffold(name)
	_, err := record(context.Background(), dir, playbookDriver(dir))
	Expect(err).NotTo(HaveOccurred())
	return dir, tree(dir)
}

func playbookDriver(dir string) *playbook.Driver {
	path := filepath.Join(dir, fixture.PlaybookFile)
	pb, err := playbook.Load(path)
	Expect(err).NotTo(HaveOccurred())
	return playbook.NewDriver(pb, path)
}

func record(ctx context.Context, dir string, d llm.Driver, mutate ...func(*recorder.Options)) (*recorder.Result, error) {
	opts := recorder.Options{Runtime: agent.Reference, Driver: d, Provider: "playbook", Model: "playbook", By: "agentsnap test"}
	if pb, ok := d.(*playbook.Driver); ok {
		opts.Consumed = pb.Unused
	}
	for _, m := range mutate {
		m(&opts)
	}
	return recorder.Record(ctx, dir, opts)
}

// tree returns every file under the fixture's parent folder with its bytes,
// so a test can show that nothing at all changed (no temporary folder left
// behind either).
func tree(dir string) map[string]string {
	out := map[string]string{}
	parent := filepath.Dir(dir)
	Expect(filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
		Expect(err).NotTo(HaveOccurred())
		rel, _ := filepath.Rel(parent, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		if !d.Type().IsRegular() {
			out[rel] = "(" + d.Type().String() + ")"
			return nil
		}
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out[rel] = string(b)
		return nil
	})).To(Succeed())
	return out
}

func replayPasses(dir string) *harness.Outcome {
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
	Expect(err).NotTo(HaveOccurred())
	Expect(o).To(harness.MatchRecording())
	Expect(judge.CompareGolden(o).Message).To(BeEmpty())
	return o
}

// cancelling wraps a driver: the n-th call cancels the recording's context
// after its first chunk, as Ctrl-C in the middle of a stream does.
type cancelling struct {
	inner  llm.Driver
	cancel context.CancelFunc
	n      int
	calls  int
}

func (c *cancelling) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	c.calls++
	seq, err := c.inner.Stream(ctx, req)
	if err != nil || c.calls != c.n {
		return seq, err
	}
	return func(yield func(llm.Chunk) bool) {
		first := true
		for ch := range seq {
			if !yield(ch) {
				return
			}
			if first {
				c.cancel()
				first = false
				<-ctx.Done()
				return
			}
		}
	}, nil
}
