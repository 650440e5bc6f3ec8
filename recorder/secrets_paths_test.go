package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const pathKey = "k3y-paths-0123456789abcdefXYZ"

// echoFailure is a live driver of its own (not llm/openai's, so nothing
// scrubs for it) whose every call fails with a message quoting the key.
type echoFailure struct{}

func (echoFailure) Stream(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
	return func(yield func(llm.Chunk) bool) {
		yield(session.ErrorFinish("TRANSPORT", "dial failed for https://h/v1?key="+pathKey))
	}, nil
}

// chunkedRuntime stores one answer whose text is the key cut in two, each
// half in a batch of its own, as a runtime that flushes every chunk does.
var chunkedRuntime = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
	h := storetest.RootHeader("root")
	if err := env.Store.Create(ctx, h, nil); err != nil {
		return err
	}
	all := storetest.CompletedTurn(0, 1, "say it", "x")
	half := len(pathKey) / 2
	for i, text := range []string{pathKey[:half], pathKey[half:]} {
		all[3+i] = storetest.Event(int64(3+i), session.TypeAssistantChunk, session.ChunkData{Turn: 1, Step: 1, Attempt: 1, Chunk: session.Chunk{Type: session.ChunkTextDelta, Text: text}})
	}
	for i := range all {
		if err := env.Store.Append(ctx, "root", all[i:i+1]); err != nil {
			return err
		}
	}
	return nil
})

var _ = Describe("the paths a credential could take out of a recording", Label("secrets"), func() {
	var dir string
	BeforeEach(func() {
		var err error
		dir, err = leaktest.Scenario(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
	})

	It("redacts a kept live failure of any driver before it is recorded", func() {
		opts := recorder.LiveOptions(echoFailure{}, "https://h/v1?key=[REDACTED]", "m")
		opts.Runtime = agent.Reference
		opts.Secrets = map[string]string{"the key= query parameter of AGENTSNAP_BASE_URL": pathKey}
		opts.KeepLiveFailures = true
		_, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`dial failed for https://h/v1?key=[REDACTED]`))
		Expect(leaktest.Traces(pathKey, []string{filepath.Dir(dir)})).To(BeEmpty())
	})

	It("redacts the runtime's warnings and errors", func() {
		var out strings.Builder
		opts := recorder.Options{Driver: echoFailure{}, Secrets: map[string]string{"GEMINI_API_KEY": pathKey}}
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }
		cause := errors.New("the runtime gave up")
		opts.Runtime = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			env.Logf("config: using key %s", pathKey)
			return fmt.Errorf("%w with key %s", cause, pathKey)
		})
		_, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(cause))
		Expect(err).To(MatchError(recorder.ErrRecording))
		Expect(err.Error()).To(ContainSubstring("the runtime gave up with key [REDACTED]"))
		Expect(out.String()).To(Equal("config: using key [REDACTED]\n"))
	})

	It("finds a key cut across batches before its second half reaches the side store, and deletes what the first left", func() {
		side := filepath.Join(GinkgoT().TempDir(), "side.db")
		var opts recorder.Options
		opts.Driver, opts.Runtime = echoFailure{}, chunkedRuntime
		opts.Secrets = map[string]string{"OPENAI_API_KEY": pathKey}
		opts.Store = func(ctx context.Context) (persistence.Store, error) { return open.Store(ctx, "sqlite:"+side) }
		_, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of OPENAI_API_KEY was streamed across chunks in session root (turn 1 step 1, up to event seq 4), on its way to the side store; " +
			"nothing was kept: the fixture is unchanged, and the 1 session this recording had stored in the side store (none holding the secret) was deleted"))
		Expect(sideSessions(sqlS, strings.TrimSuffix(side, ".db"))).To(BeEmpty())
		Expect(leaktest.Traces(pathKey, []string{filepath.Dir(side), filepath.Dir(dir)})).To(BeEmpty(), "not even the first half, which was stored and then deleted")
	})

	It("warns that a value too short to tell from text is not checked, and records it", func() {
		var out strings.Builder
		dir := committed("fork/codeword")
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		opts.Secrets = map[string]string{"OPENAI_API_KEY": "OK"}
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }
		res, err := recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred(), "the fixture's answer OK is no secret")
		Expect(out.String()).To(ContainSubstring("the value of OPENAI_API_KEY is shorter than 8 bytes, too short to tell from ordinary text: the recording is not checked for it"))
		Expect(res.Warnings).To(ContainElement(ContainSubstring("OPENAI_API_KEY is shorter than 8 bytes")))
	})
})
