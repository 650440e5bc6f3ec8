package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Options configures a recording. PlaybookOptions and LiveOptions fill the
// model's part for the two usual cases.
type Options struct {
	// Runtime is the agent recorded (default agent.Reference).
	Runtime agentsnap.Runtime

	Driver llm.Driver // the model: a playbook driver, or a live one (set Live)
	// Consumed, if set, runs after the prompts and fails the recording when
	// authored model turns went unused (a playbook.Driver's Unused): the
	// agent took another path than its author planned.
	Consumed func() error
	Provider string // recorded in request headers and scenario.json
	Model    string // recorded in request headers and scenario.json
	By       string // recorded as scenario.json recorded.by, e.g. "agentsnap v0.1.0"
	// Playbook is the digest of the playbook the answers come from
	// (PlaybookDigest), recorded so a later edit of it asks for a new
	// recording; "" for a live recording.
	Playbook string
	// Lineage is recorded as scenario.json's recorded.lineage: "infer"
	// when the runtime tells sessions apart by what their calls send
	// (wire.Infer), so a replay does the same.
	Lineage string

	// Live says Driver is a live endpoint. A live call that fails for a
	// reason outside the model — the network, the key, an unknown model, a
	// server error after the retries — and that the agent did not recover
	// from by retrying fails the recording, and nothing is saved, unless
	// KeepLiveFailures. Endpoint (a redacted URL) names the endpoint in
	// that message.
	Live             bool
	Endpoint         string
	KeepLiveFailures bool
	// LiveFailure tells such failures by their code; default
	// openai.InfrastructureFailure.
	LiveFailure func(code string) bool

	// Secrets maps a name (an environment variable) to a value that must
	// never be written; values shorter than 8 bytes are ignored.
	Secrets map[string]string

	// Store, if set, opens the store the recording persists through as it
	// runs (e.g. SQLite, to keep a long live recording's sessions even if
	// the process dies). Default: in memory. The fixture's JSONL files are
	// written from it at the end either way.
	Store func(ctx context.Context) (persistence.Store, error)

	Progress io.Writer // one line per session turn; nil for none
	// Clock stamps the logs; default time.Now for a live recording and
	// agentsnap.Epoch otherwise, so an unchanged playbook records the same
	// bytes.
	Clock func() time.Time
	// Placeholders maps machine paths to the placeholders they become.
	// Default: placeholder.Defaults (working, temporary and home folders).
	Placeholders []placeholder.Pair
	// Logf receives the scenario's and the runtime's warnings.
	Logf func(format string, args ...any)
	// ReplaceGolden lets a recording replace a transcript.golden that its
	// transcript differs from. Without it the golden is kept and the new
	// transcript is written beside it as transcript.golden.new, a proposal
	// to review (agentsnap review): a changed behaviour is looked at before
	// it becomes the golden.
	ReplaceGolden bool
}

// Result describes a finished recording.
type Result struct {
	Dir      string
	Sessions int
	Calls    int // model calls
	Files    []string
	// Unchanged is true when the recording came out byte for byte as the
	// fixture already was; nothing was written then.
	Unchanged bool
	// Proposal is the path of the transcript.golden.new written because
	// the golden differs from the new transcript, or "".
	Proposal string
	// ToolErrors lists the tool calls whose result was an error (an unknown
	// tool, bad arguments, the depth limit), one sentence each: recorded
	// behaviour, but usually worth a look.
	ToolErrors []string
	// Warnings are the scenario's and the runtime's warnings, also given
	// to Options.Logf as soon as they are known.
	Warnings []string
}

// Errors of Record, for errors.Is.
var (
	ErrSecret      = errors.New("refusing to save: a secret appears in the recording")
	ErrRecording   = errors.New("recording failed")
	ErrLiveFailure = errors.New("the live model failed")
)

// Record runs the scenario in dir and replaces the fixture's logs, golden
// and recording metadata. On any error the folder is left as it was.
func Record(ctx context.Context, dir string, opts Options) (*Result, error) {
	if opts.Driver == nil {
		return nil, errors.New("recorder: Options.Driver is nil; use PlaybookOptions (offline) or LiveOptions (a live model)")
	}
	if opts.Runtime == nil {
		opts.Runtime = agent.Reference
	}
	if opts.Clock == nil {
		opts.Clock = func() time.Time { return agentsnap.Epoch }
		if opts.Live {
			opts.Clock = time.Now
		}
	}
	if opts.LiveFailure == nil {
		opts.LiveFailure = openai.InfrastructureFailure
	}
	if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("recorder: %s is a symlink; record into the real folder, so the swap cannot land outside the fixtures", dir)
	}
	if _, err := atomicfile.RecoverDir(dir, "record"); err != nil {
		return nil, fmt.Errorf("recorder: %s: cleaning up after an earlier recording: %w", dir, err)
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, Warnings: sc.Warnings}
	warnings, err := agentsnap.Validate(opts.Runtime, sc)
	if err != nil {
		return nil, fmt.Errorf("recorder: %s: %w", dir, err)
	}
	res.Warnings = append(res.Warnings, warnings...)
	if opts.Logf != nil {
		for _, w := range res.Warnings {
			opts.Logf("%s", w)
		}
	}
	logs, err := run(ctx, dir, sc, &opts)
	if err != nil {
		return nil, err
	}
	files, rendered, same, err := render(dir, logs, sc, &opts)
	if err != nil {
		return nil, err
	}
	if err := tripwire(files, rendered, opts.Secrets); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("recorder: %s: %w; the fixture is unchanged", dir, err)
	}
	res.Unchanged = same
	if !same {
		if err := save(dir, files); err != nil {
			return nil, err
		}
	}
	res.Sessions = len(logs)
	for _, l := range logs {
		res.Calls += countCalls(l.Own())
	}
	for name := range files {
		res.Files = append(res.Files, name)
	}
	if _, ok := files[scenario.ProposalFile]; ok {
		res.Proposal = filepath.Join(dir, scenario.ProposalFile)
	}
	res.ToolErrors = toolErrors(rendered)
	return res, nil
}

// run drives the prompts through the runtime and returns the logs in
// lineage order.
func run(ctx context.Context, dir string, sc *scenario.Scenario, opts *Options) ([]*session.Log, error) {
	var store persistence.Store = memory.New()
	if opts.Store != nil {
		var err error
		if store, err = opts.Store(ctx); err != nil {
			return nil, fmt.Errorf("recorder: opening the store: %w", err)
		}
	}
	defer store.Close()
	driver := opts.Driver
	var watch *liveWatch
	if opts.Live {
		watch = &liveWatch{inner: opts.Driver, failure: opts.LiveFailure}
		driver = watch
	}
	cwd, _ := os.Getwd()
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	env := &agentsnap.Env{
		Scenario:  sc,
		Dir:       dir,
		Driver:    driver,
		Provider:  opts.Provider,
		Model:     opts.Model,
		Store:     progressStore(store, opts.Progress, dir),
		Clock:     opts.Clock,
		Cwd:       cwd,
		Recording: true,
		Live:      opts.Live,
		Logf:      logf,
	}
	runErr := opts.Runtime.Run(ctx, env)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged", ErrRecording, dir, ctx.Err())
	}
	// A live failure explains the run error it caused, so it comes first.
	if opts.Live && !opts.KeepLiveFailures {
		if err := watch.failed(opts.Endpoint); err != nil {
			return nil, fmt.Errorf("%w: %s: %w; nothing was saved, the fixture is unchanged", ErrRecording, dir, err)
		}
	}
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, fmt.Errorf("%w: %s: %w%s; the fixture is unchanged", ErrRecording, dir, runErr, likelyCause(logs))
	}
	if opts.Consumed != nil {
		if err := opts.Consumed(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w%s; the fixture is unchanged", ErrRecording, dir, err, likelyCause(logs))
		}
	}
	return session.LineageOrder(logs)
}

func countCalls(evs []session.Event) int {
	n := 0
	for i := range evs {
		if evs[i].Type == session.TypeRequestHeader {
			n++
		}
	}
	return n
}
