package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// ByTests is Options.By of a recording made from a user's tests
// (harness, -record): the CLI and judge tell such a fixture by it when its
// runtime has no name, so agentsnap record does not redo it with the
// reference agent, nor check replay it with that agent (judge mirrors it
// as byTests: this package imports judge).
const ByTests = "agentsnap (go test)"

// Options configures a recording. PlaybookOptions and LiveOptions fill the
// model's part for the two usual cases.
type Options struct {
	// Runtime is the agent recorded: agent.Reference for agentsnap's own
	// fixtures, yours for yours. Required.
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

	// Live says Driver is a live endpoint. A live call (or token count)
	// that fails for a reason outside the model — the network, the key, an
	// unknown model, a server error after the retries — and that the agent
	// did not recover from by retrying (counting the request again) fails
	// the recording, and nothing is saved, unless KeepLiveFailures. Endpoint (a redacted URL) names the endpoint in
	// that message.
	Live             bool
	Endpoint         string
	KeepLiveFailures bool
	// LiveFailure tells such failures by their code; default
	// live.InfrastructureFailure.
	LiveFailure func(code string) bool

	// Secrets maps a source to a value that must never be written or
	// shown: an environment variable ("OPENAI_API_KEY"), or a phrase that
	// completes "the value of ..." ("the key= query parameter of
	// AGENTSNAP_BASE_URL"). A Driver with a Credentials() map[string]string
	// method (llm/openai's) adds what it sends, and a live driver adds what
	// it sends as it sends it (internal/secret's context). Values shorter
	// than 8 bytes are not secrets: they would match ordinary text; the
	// recording warns about each, and about a source given with an empty
	// value (a variable not set). The recording is refused when a file
	// would contain a secret, also cut across the chunks of a stream, and
	// every error, warning and progress line is redacted.
	Secrets map[string]string

	// Store, if set, opens a side store the recording also persists
	// through as it runs (e.g. SQLite, to keep a long live recording's
	// sessions even if the process dies). It must hold no session: one an
	// earlier run filled is refused before the agent runs, since the
	// recording would fail on the first session id it holds. The fixture
	// is written from the recording's own memory store either way. A batch holding a secret
	// never reaches the side store: the recording is refused at once and
	// the sessions it created there are deleted (the store must be a
	// persistence.Deleter, as the jsonl and sqlite stores are; with another
	// the error names what is left). Its error should name what did not
	// open (the store's path, as the jsonl and sqlite stores' errors do):
	// the recording's follows it with what to do only when it is one
	// persistence.OpenAdvice recognises (a missing folder, a permission, a
	// file that is no log), and says that nothing ran.
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

	// OnlyChanged re-records only what changed: every session replays its
	// recorded calls while the agent's requests match them (the model, the
	// system prompt, the tools, the conversation, the settings) and asks
	// Driver from its first call that does not; a session the recording
	// lacks, or created after its parent went to Driver, asks it from its
	// first call. While a session replays, its recorded tools and MCP
	// requests get their recorded answers (Env.ToolReplay) and do not run;
	// from its first call to Driver on they run, and their new answers
	// are recorded. A session that replays to its recorded events keeps its
	// log byte for byte (event times included); a changed one keeps the
	// times up to its first difference. Result.Reuse says what was kept,
	// what was re-recorded and what the calls to Driver cost. A scenario
	// never recorded is recorded whole. With a playbook, the recording
	// must be of the same playbook.json (or live): a recording is refused
	// when the playbook changed since, since the answers kept would no
	// longer be its.
	OnlyChanged bool
	// Session, a lineage path such as "root/call_1", re-records that
	// recorded session and its subtree even where their requests match —
	// a model upgraded behind the same name, say — and keeps the rest as
	// OnlyChanged does (it implies OnlyChanged). A session that receives
	// the subtree's new result asks Driver from that call on.
	Session string
	// Replayed, if set, is told of every call OnlyChanged replays instead
	// of asking Driver, so a driver that counts each session's calls (a
	// playbook.Driver's Skip) answers the next one in step.
	Replayed func(req *llm.Request)

	// played is set by PlaybookOptions: its driver counts the turns it
	// played, so the options serve one recording (see Record).
	played *atomic.Bool
}

// Result describes a finished recording.
type Result struct {
	Dir      string
	Sessions int
	Calls    int // model calls of every session (session.ModelCalls)
	// Files names the fixture's files the recording holds (written unless
	// Unchanged), sorted, so every run lists them alike.
	Files []string
	// Unchanged is true when the recording came out byte for byte as the
	// fixture already was; nothing was written then.
	Unchanged bool
	// Changed names the files of Files whose bytes the recording changed
	// or added, and Removed the recorded files it dropped (a child log no
	// longer created, a stale proposal), sorted: what the recording
	// changed, where Files is everything it holds.
	Changed, Removed []string
	// Proposal is the path of the transcript.golden.new written because
	// the golden differs from the new transcript, or "".
	Proposal string
	// ToolErrors lists the tool calls whose result was an error (an unknown
	// tool, bad arguments, the depth limit), one sentence each: recorded
	// behaviour, but usually worth a look.
	ToolErrors []string
	// Warnings are the scenario's and the runtime's warnings, and the
	// recorder's about secrets too short to check, also given to
	// Options.Logf as soon as they are known.
	Warnings []string
	// Reuse says what an OnlyChanged recording kept and re-recorded; nil
	// for a whole recording.
	Reuse *Reuse
}

// Errors of Record, for errors.Is.
var (
	ErrSecret      = errors.New("refusing to save: a secret appears in the recording")
	ErrRecording   = errors.New("recording failed")
	ErrLiveFailure = errors.New("the live model failed")
)

// Record runs the scenario in dir and replaces the fixture's logs, golden
// and recording metadata. On any error the folder is left as it was. No
// error, warning or progress line it gives holds the value of a secret.
func Record(ctx context.Context, dir string, opts Options) (_ *Result, err error) {
	if opts.Driver == nil {
		return nil, errors.New("recorder: Options.Driver is nil; use PlaybookOptions (offline) or LiveOptions (a live model)")
	}
	set := secretsOf(&opts)
	defer func() { err = set.Error(err) }()
	ctx = secret.NewContext(ctx, set)
	redactOutput(&opts, set)
	sc, res, err := prepare(dir, &opts, set)
	if err != nil {
		return nil, err
	}
	re, err := onlyChanged(dir, sc, &opts)
	if err != nil {
		return nil, err
	}
	if w := re.warning(); w != "" {
		w = set.Redact(w)
		res.Warnings = append(res.Warnings, w)
		if opts.Logf != nil {
			opts.Logf("%s", w)
		}
	}
	store, side, err := openStore(ctx, &opts, set)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if opts.played != nil && opts.played.Swap(true) {
		return nil, fmt.Errorf("recorder: %s: these Options already served a recording, and their playbook driver has played its turns; call PlaybookOptions again for each Record", dir)
	}
	logs, err := run(ctx, dir, sc, &opts, store, side, re)
	if err != nil {
		return nil, err
	}
	files, rendered, same, err := render(dir, logs, sc, &opts, re.keeper())
	if err != nil {
		return nil, err
	}
	if err := tripwire(files, rendered, set); err != nil {
		what := "nothing was written"
		if side != nil {
			what = side.discard(ctx)
		}
		return nil, fmt.Errorf("%w; %s (check what the model, a tool or an MCP server echoed, and never put keys in prompts)", err, what)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("recorder: %s: %w; the fixture is unchanged%s", dir, err, side.kept())
	}
	res.Unchanged = same
	if !same {
		res.Changed, res.Removed = changes(dir, files)
		if err := save(dir, files); err != nil {
			return nil, err
		}
	}
	res.Sessions = len(logs)
	for _, l := range logs {
		res.Calls += l.CountModelCalls()
	}
	res.Files = slices.Sorted(maps.Keys(files))
	if _, ok := files[fixture.ProposalFile]; ok {
		res.Proposal = filepath.Join(dir, fixture.ProposalFile)
	}
	res.ToolErrors = toolErrors(rendered)
	res.Reuse = re.summary(rendered, sc, opts.Model)
	return res, nil
}

// onlyChanged returns the model of an OnlyChanged recording, or nil for a
// whole recording.
func onlyChanged(dir string, sc *scenario.Scenario, opts *Options) (*reuse, error) {
	if opts.Session != "" {
		opts.OnlyChanged = true
	}
	if !opts.OnlyChanged {
		return nil, nil
	}
	old, err := loadRecording(dir, sc, opts)
	if err != nil {
		return nil, err
	}
	return newReuse(dir, old, opts)
}

// prepare fills the defaults of opts, cleans up after an earlier recording
// of dir and loads its scenario, and gives every warning (those of the
// scenario, the runtime and the secrets too short to check) to Logf.
func prepare(dir string, opts *Options, set *secret.Set) (*scenario.Scenario, *Result, error) {
	if opts.Runtime == nil {
		return nil, nil, errors.New("recorder: Options.Runtime is nil: pass the runtime to record (agent.Reference for agentsnap's own fixtures)")
	}
	if opts.Clock == nil {
		opts.Clock = func() time.Time { return agentsnap.Epoch }
		if opts.Live {
			opts.Clock = time.Now
		}
	}
	if opts.LiveFailure == nil {
		opts.LiveFailure = live.InfrastructureFailure
	}
	if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, nil, fmt.Errorf("recorder: %s is a symlink; record into the real folder, so the swap cannot land outside the fixtures", dir)
	}
	if _, err := atomicfile.RecoverDir(dir, "record"); err != nil {
		return nil, nil, fmt.Errorf("recorder: %s: cleaning up after an earlier recording: %w", dir, err)
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Dir: dir, Warnings: sc.Warnings}
	warnings, err := agentsnap.Validate(opts.Runtime, sc)
	if err != nil {
		return nil, nil, fmt.Errorf("recorder: %s: %w", dir, err)
	}
	res.Warnings = append(res.Warnings, warnings...)
	for _, src := range set.Short() {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the value of %s is shorter than %d bytes, too short to tell from ordinary text: the recording is not checked for it", src, secret.MinLen))
	}
	for _, src := range set.Empty() {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the value of %s is empty (is it set?): the recording is not checked for it", src))
	}
	for i, w := range res.Warnings {
		res.Warnings[i] = set.Redact(w)
		if opts.Logf != nil {
			opts.Logf("%s", res.Warnings[i])
		}
	}
	return sc, res, nil
}

// credentialed is a driver that says what it sends as credentials, such as
// llm/openai's Driver.
type credentialed interface {
	Credentials() map[string]string
}

// secretsOf gathers the secrets of a recording: Options.Secrets, then the
// credentials the driver says it sends. A live driver adds more while it
// runs, through the context (internal/secret).
func secretsOf(opts *Options) *secret.Set {
	set := secret.New()
	set.AddAll(opts.Secrets)
	if c, ok := opts.Driver.(credentialed); ok {
		set.AddAll(c.Credentials())
	}
	return set
}

// redactOutput makes every line the recording gives — progress, warnings,
// the endpoint its messages name — lose the secrets of set, including
// those a live driver adds while it runs.
func redactOutput(opts *Options, set *secret.Set) {
	opts.Endpoint = set.Redact(opts.Endpoint)
	if opts.Progress != nil {
		opts.Progress = set.Writer(opts.Progress)
	}
	if logf := opts.Logf; logf != nil {
		opts.Logf = func(format string, args ...any) { logf("%s", set.Redact(fmt.Sprintf(format, args...))) }
	}
}

// openStore returns the store the recording runs on: memory, or memory and
// the side store of Options.Store behind a guard (side, nil without one).
func openStore(ctx context.Context, opts *Options, set *secret.Set) (persistence.Store, *sideStore, error) {
	own := memory.New()
	if opts.Store == nil {
		return own, nil, nil
	}
	store, err := opts.Store(ctx)
	if err != nil {
		own.Close()
		return nil, nil, fmt.Errorf("recorder: the side store (Options.Store, record's --store) does not open: %w; %snothing ran and the fixture is unchanged", err, knownOpenAdvice(err))
	}
	// Checked before the agent runs: the recording creates its sessions
	// there, every recording of a scenario the same ids, and would fail on
	// the first one held only once the agent made its calls (live ones
	// paid for).
	held, err := store.List(ctx)
	if err == nil && len(held) > 0 {
		// A root names the earlier run best; a JSONL folder lists its
		// sessions by file name.
		if i := slices.IndexFunc(held, func(h session.Header) bool { return !h.IsChild() }); i > 0 {
			held[0] = held[i]
		}
		err = fmt.Errorf("it already holds %d %s (such as %s), an earlier run's: the recording creates its sessions there; give it an empty one (a new path) or delete the old; nothing ran and the fixture is unchanged", len(held), english.Plural(len(held), "session"), held[0].ID)
	}
	if err != nil {
		own.Close()
		store.Close()
		return nil, nil, fmt.Errorf("recorder: the side store (Options.Store, record's --store): %w", err)
	}
	side := newSideStore(own, store, set)
	return side, side, nil
}

// knownOpenAdvice is persistence.OpenAdvice's advice and "; " when it
// recognises err and err does not say itself what to do, else "".
// Options.Store's function is the caller's own — a database connection, a
// folder it chose — so its advice for a path the
// CLI opens would mislead: the CLI adds that to its --store errors itself.
func knownOpenAdvice(err error) string {
	if a := persistence.OpenAdvice(err); a != "" && a != persistence.OpenAdvice(nil) {
		return a + "; "
	}
	return ""
}

// run drives the prompts through the runtime on store and returns the logs
// in lineage order.
func run(ctx context.Context, dir string, sc *scenario.Scenario, opts *Options, store persistence.Store, side *sideStore, re *reuse) ([]*session.Log, error) {
	driver := opts.Driver
	var watch *liveWatch
	if opts.Live {
		watch = &liveWatch{inner: opts.Driver, failure: opts.LiveFailure, set: secret.FromContext(ctx)}
		driver = watch
	}
	var tools llm.ToolReplay
	if re != nil { // replays what still matches, asks driver for the rest
		re.model, driver = driver, re
		if re.replay != nil { // and serves the recorded tools of what replays
			tools = re
		}
	}
	cwd, _ := os.Getwd()
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	env := &agentsnap.Env{
		Scenario:   sc,
		Dir:        dir,
		Driver:     driver,
		ToolReplay: tools,
		Provider:   opts.Provider,
		Model:      opts.Model,
		Store:      progressStore(store, opts.Progress, dir),
		Clock:      opts.Clock,
		Cwd:        cwd,
		Recording:  true,
		Live:       opts.Live,
		Logf:       logf,
	}
	runErr := opts.Runtime.Run(ctx, env)
	// A secret on its way to the side store explains whatever else went
	// wrong after it, so it comes first.
	if err := side.refused(); err != nil {
		return nil, fmt.Errorf("%w; %s (check what the model, a tool or an MCP server echoed, and never put keys in prompts)", err, side.discard(ctx))
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged%s", ErrRecording, dir, ctx.Err(), side.kept())
	}
	// A live failure explains the run error it caused, so it comes next.
	if opts.Live && !opts.KeepLiveFailures {
		if err := watch.failed(opts.Endpoint); err != nil {
			what := "nothing was saved, the fixture is unchanged"
			if kept := side.kept(); kept != "" {
				what = "the fixture is unchanged" + kept
			}
			return nil, fmt.Errorf("%w: %s: %w; %s", ErrRecording, dir, err, what)
		}
	}
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged%s%s", ErrRecording, dir, runErr, side.kept(), likelyCause(logs))
	}
	if opts.Consumed != nil {
		if err := opts.Consumed(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged%s%s", ErrRecording, dir, err, side.kept(), likelyCause(logs))
		}
	}
	return session.LineageOrder(logs)
}
