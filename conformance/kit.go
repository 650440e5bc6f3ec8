package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
)

// Config describes the runtime under test.
type Config struct {
	// New returns a fresh runtime; the kit calls it once per recording and
	// once per replay. Required.
	New func() agentsnap.Runtime
	// Agent is the scenario.json "agent" member that makes the runtime
	// offer the tools subagent_spawn, subagent_fork and Tool.Name. Required.
	Agent json.RawMessage
	// Tool is one of the runtime's own tools, called with these arguments.
	// Its result must not change from run to run. Required unless the
	// scenario fork-after-tool-call is skipped.
	Tool ToolCall
	// DelegateArgs returns the arguments of a subagent_spawn or
	// subagent_fork call; default {"description": ..., "prompt": ...}.
	DelegateArgs func(description, prompt string) json.RawMessage
	// Skip names scenarios the runtime does not support. They are reported
	// as skipped (Result.Skipped, and logged by Run), never silently.
	Skip []string
	// Dir, if set, is where the fixtures are written and kept, to look at
	// (agentsnap inspect DIR/fork/fork-later-turn). Default: a temporary
	// folder, removed unless a rule is broken (Result.Dir), and then named
	// in the failure. A test that breaks rules on purpose gives it
	// t.TempDir(), so no run leaves one behind.
	Dir string
}

// ToolCall is a call of one of the runtime's own tools.
type ToolCall struct {
	Name      string
	Arguments json.RawMessage // a JSON object
}

// Violation is one broken rule of the session-log contract, found in one
// scenario, with what to do about it.
type Violation struct {
	Scenario string // a name of Scenarios
	Rule     string // the rule's id, such as "turn-numbering"
	Problem  string // what is wrong, with the values found and wanted
	Fix      string // how to fix the runtime
}

// String returns "scenario: rule: problem".
func (v Violation) String() string { return v.Scenario + ": " + v.Rule + ": " + v.Problem }

// Result is the verdict of Check.
type Result struct {
	Passed     []string // scenarios without a violation, in run order
	Skipped    []string // scenarios named in Config.Skip
	Violations []Violation
	// Dir holds the recorded fixtures, one folder per scenario
	// (Dir/fork/fork-later-turn): Config.Dir, or a temporary folder kept
	// only when a rule is broken; "" when it was removed.
	Dir string
}

// Err returns nil when no rule was broken, else one error listing every
// violation with its fix.
func (r *Result) Err() error {
	if len(r.Violations) == 0 {
		return nil
	}
	failed := map[string]bool{}
	for _, v := range r.Violations {
		failed[v.Scenario] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "conformance: %d violation(s) of the session-log contract in %d of %d scenario(s)", len(r.Violations), len(failed), len(failed)+len(r.Passed))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, " (%s skipped)", strings.Join(r.Skipped, ", "))
	}
	b.WriteString(":")
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  %s\n      fix: %s", strings.ReplaceAll(v.String(), "\n", "\n      "), v.Fix)
	}
	if r.Dir != "" {
		fmt.Fprintf(&b, "\nthe recordings are kept in %s; agentsnap inspect %s shows one scenario's session tree", r.Dir, filepath.Join(r.Dir, "CATEGORY", "NAME"))
	}
	return errors.New(b.String())
}

// Scenarios returns the names of the built-in scenarios, in the order they run.
func Scenarios() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.name
	}
	return names
}

// Run checks the runtime cfg describes against every built-in scenario and
// fails t with one error listing every violation and its fix. Skipped
// scenarios are logged.
func Run(t testing.TB, cfg Config) {
	t.Helper()
	res, err := Check(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
		return
	}
	for _, name := range res.Skipped {
		t.Logf("conformance: scenario %s skipped (Config.Skip): its rules were not checked", name)
	}
	if err := res.Err(); err != nil {
		t.Error(err)
	}
}

// Check records and replays every built-in scenario with the runtime cfg
// describes and returns every violation. Its error says the kit itself
// could not run: a bad Config, a folder it could not write, a cancelled ctx.
func Check(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// The keys of the shell the kit runs in (and what the runtime sends as
	// a credential, which the wire layer adds to the set of the context)
	// are secrets of its recordings, as of -record's: a recording that
	// would hold one is refused, and no violation shows one.
	secrets := secret.FromEnv(os.Getenv)
	ctx = secret.NewContext(ctx, secrets)
	res := &Result{Dir: cfg.Dir}
	if res.Dir == "" {
		tmp, err := os.MkdirTemp("", "agentsnap-conformance-")
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		// Kept when a rule is broken, to look at.
		defer func() {
			if len(res.Violations) == 0 {
				os.RemoveAll(tmp)
				res.Dir = ""
			}
		}()
		res.Dir = tmp
	}
	for _, b := range builtins {
		if slices.Contains(cfg.Skip, b.name) {
			res.Skipped = append(res.Skipped, b.name)
			continue
		}
		vs, err := b.check(ctx, &cfg, filepath.Join(res.Dir, b.category, b.name), secrets)
		if err != nil {
			res.Violations = nil
			return nil, err
		}
		if len(vs) == 0 {
			res.Passed = append(res.Passed, b.name)
		}
		res.Violations = append(res.Violations, vs...)
	}
	return res, nil
}

func (cfg *Config) validate() error {
	var problems []string
	if cfg.New == nil {
		problems = append(problems, "Config.New is nil; give it a function that returns a fresh runtime")
	}
	if !isObject(cfg.Agent) {
		problems = append(problems, fmt.Sprintf("Config.Agent is %q; give the JSON object of scenario.json's \"agent\" member that makes the runtime offer subagent_spawn, subagent_fork and Config.Tool", cfg.Agent))
	}
	if !slices.Contains(cfg.Skip, "fork-after-tool-call") {
		if cfg.Tool.Name == "" {
			problems = append(problems, "Config.Tool.Name is empty; name one of the runtime's tools (or skip fork-after-tool-call)")
		}
		if len(cfg.Tool.Arguments) == 0 {
			cfg.Tool.Arguments = json.RawMessage(`{}`)
		} else if !isObject(cfg.Tool.Arguments) {
			problems = append(problems, fmt.Sprintf("Config.Tool.Arguments is %s; give a JSON object", cfg.Tool.Arguments))
		}
	}
	if cfg.DelegateArgs != nil && !isObject(cfg.DelegateArgs("d", "p")) {
		problems = append(problems, fmt.Sprintf("Config.DelegateArgs returns %s; return a JSON object", cfg.DelegateArgs("d", "p")))
	}
	for _, s := range cfg.Skip {
		if !slices.Contains(Scenarios(), s) {
			problems = append(problems, fmt.Sprintf("Config.Skip names %q, which is no scenario; the scenarios are %s", s, strings.Join(Scenarios(), ", ")))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("conformance: %s", strings.Join(problems, "; "))
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}

// delegate returns the arguments of a delegation call.
func (cfg *Config) delegate(description, prompt string) json.RawMessage {
	if cfg.DelegateArgs != nil {
		return cfg.DelegateArgs(description, prompt)
	}
	b, _ := json.Marshal(map[string]string{"description": description, "prompt": prompt})
	return b
}

// check runs one scenario in dir: record, check the recorded logs, replay.
func (b *builtin) check(ctx context.Context, cfg *Config, dir string, secrets *secret.Set) ([]Violation, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if err := b.write(dir, cfg); err != nil {
		return nil, err
	}
	opts, err := recorder.PlaybookOptions(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("conformance: %s: %w", b.name, err)
	}
	opts.Secrets = secrets.Values()
	r := newReport(b.name, secrets)
	if !b.record(ctx, r, cfg, dir, opts) {
		return r.violations(), stopped(ctx, b)
	}
	logs, err := session.ReadFolder(dir)
	if err != nil {
		r.add(ruleRecords, fixRecords, fmt.Sprintf("the recorded logs do not read back: %v", err))
		return r.violations(), nil
	}
	checkTree(r, logs)
	checkRootEnds(r, b, logs[0])
	b.replay(ctx, r, cfg, dir)
	return r.violations(), stopped(ctx, b)
}

// stopped reports a cancelled ctx: the verdict is incomplete.
func stopped(ctx context.Context, b *builtin) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("conformance: %s: stopped: %w", b.name, err)
	}
	return nil
}

const fixRecords = "Run must run every prompt as a turn of one root session, send each model call through env.Driver with the calling session's identity (llm.Request.Session: id, parent, parentCallId), create one child per subagent_spawn/subagent_fork call, and return nil when the run completes; a failed model call or a timed-out turn is a recorded outcome, not an error"

const fixSecret = "keep the keys of the shell the kit runs in out of what the runtime writes: a tool that echoes its environment, a key in a prompt, a message or a setting (-record and agentsnap record refuse such a recording as the kit does)"

// record records the scenario with a fresh runtime, reporting what the
// store refused and why the recording failed; false means there is no
// recording to check.
func (b *builtin) record(ctx context.Context, r *report, cfg *Config, dir string, opts recorder.Options) bool {
	opts.Runtime = cfg.New()
	store := &watchStore{Store: memory.New()}
	opts.Store = func(context.Context) (persistence.Store, error) { return store, nil }
	res, err := recorder.Record(ctx, dir, opts)
	for _, refused := range store.refused() {
		switch {
		case errors.Is(refused, persistence.ErrOutOfOrder):
			r.once("store", ruleSeqDense, "number a session's events 0, 1, 2, … with no gap or repeat, continuing across appends; a fork child's own events continue after its seedLength inherited ones (journal.Journal numbers them)",
				fmt.Sprintf("the store refused events: %v", refused))
		case errors.Is(refused, persistence.ErrBadSeed):
			r.once("store", ruleSeedStamped, fixSeed, fmt.Sprintf("the store refused a child: %v", refused))
		default:
			r.once("store", ruleRecords, "write only what a session log holds: a header with an id, events with a type and JSON data (persistence.ValidateHeader, ValidateEvent)",
				fmt.Sprintf("the store refused a write: %v", refused))
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			msg := err.Error()
			if !errors.Is(err, recorder.ErrRecording) { // which says "recording failed" itself
				msg = "recording failed: " + msg
			}
			fix := fixRecords + b.hint
			if errors.Is(err, recorder.ErrSecret) {
				fix = fixSecret
			}
			r.add(ruleRecords, fix, msg)
			// A tree that does not hold together fails the recording;
			// name the header that broke it.
			checkLineage(r, store.headers())
			// A seed cut inside a turn makes the child's own events
			// collide with the store's numbering; name the seed, not
			// only the refused events.
			for _, p := range store.cutSeeds() {
				r.once(p.id, ruleSeedStamped, fixSeed, p.problem)
			}
		}
		return false
	}
	for _, te := range res.ToolErrors {
		r.add(ruleRecords, "make Config.Agent offer subagent_spawn, subagent_fork and Config.Tool, and give Config.Tool arguments it accepts: a tool that fails leaves the scenario's path untested",
			fmt.Sprintf("a tool call returned an error: %s", te))
	}
	return true
}

// replay replays the recording with a fresh runtime (b.replays times) and
// compares it with the recording, the golden transcript and, for more than
// one replay, with each other.
func (b *builtin) replay(ctx context.Context, r *report, cfg *Config, dir string) {
	fx, err := fixture.Load(dir)
	if err != nil {
		r.add(ruleReplay, r.refusedFix(), fmt.Sprintf("the recording does not load for replay: %v", err))
		return
	}
	var first [][]byte
	var differ []string
	for n := 1; n <= max(b.replays, 1); n++ {
		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: cfg.New(), Hints: judge.Hints{Fresh: freshHint}})
		if err != nil && refusesLog(err) {
			r.add(ruleReplay, r.badLogFix(), fmt.Sprintf("the replay refuses a log the runtime wrote while the kit recorded the scenario: %v", err))
			return
		}
		if err != nil {
			r.add(ruleReplay, r.refusedFix(), fmt.Sprintf("the replay could not run: %v", err))
			return
		}
		if n == 1 {
			if !o.Passed() {
				r.add(ruleReplay, fixReplay, "the replay differs from the recording:\n"+o.Report())
			}
			if g := judge.CompareGolden(o); g.Message != "" {
				r.add(ruleGolden, "the transcript is rendered from the replayed logs: make the replay write what the recording wrote (replay-matches says where it does not); "+fixReplay, g.Message)
			}
			first = encodeAll(o.Replayed)
			continue
		}
		if d := firstDifference(first, encodeAll(o.Replayed), o.Replayed); d != "" {
			differ = append(differ, fmt.Sprintf("replay %d: %s", n, d))
		}
	}
	if len(differ) > 0 {
		r.add(ruleDeterministic, "make a log's bytes independent of scheduling and of earlier runs: stamp times with env.Clock, name sessions by lineage (session.NewLineageIDs), write a step's tool/result events in call order whatever order the children finish in, and keep no state between Run calls",
			fmt.Sprintf("%d of %d replays wrote other bytes than replay 1; the first: %s", len(differ), b.replays-1, differ[0]))
	}
}

// refusedFix is the fix of a recording the replay refuses: when the
// scenario already broke a rule, the recording is what is wrong, not the
// runtime's replay. Usage is no such rule: a replay takes a call without
// its usage, so a refusal after it alone is the replay's.
func (r *report) refusedFix() string {
	if slices.ContainsFunc(r.out, func(v Violation) bool { return v.Rule != ruleUsage }) {
		return "the recording breaks the rule(s) named before this one in " + r.scenario + ", and the replay refuses such a recording: fix those first"
	}
	return fixReplay
}

// refusesLog reports whether err is the replay's refusal of a recorded
// log, which the runtime under test wrote moments before: a model call
// without its finish, a chunk against the contract, a seed cut inside a
// turn.
func refusesLog(err error) bool {
	return errors.Is(err, fakellm.ErrContract) || errors.Is(err, fakellm.ErrIncompleteCall) ||
		errors.Is(err, session.ErrSeedBoundary) || errors.Is(err, session.ErrSeedPastEnd)
}

// badLogFix is the fix of a recorded log the replay refuses: the rules
// named before it say what the runtime wrote wrong — usage too, since a
// token count below 0 is such a refusal — else the refusal itself does.
func (r *report) badLogFix() string {
	if len(r.out) > 0 {
		return "the recording breaks the rule(s) named before this one in " + r.scenario + ", and the replay refuses such a recording: fix those first"
	}
	return "write each session's log as CONTRACT.md describes it (package journal writes it so): the replay refuses what the runtime wrote at the place named"
}

// freshHint ends the replay's messages instead of a command that
// re-records the scenario or updates its golden: the kit records every
// scenario afresh, so a replay that fails is the runtime's bug, not a stale
// fixture's.
const freshHint = "the kit recorded this scenario moments before with a runtime from Config.New, so the runtime is at fault, not a stale recording (see the fix below)"

const fixReplay = "a replay must do what the recording did: the runtime may not depend on env.Recording, wall-clock time, randomness or state kept between runs, and must send each session's calls in the recorded order"

func encodeAll(logs []*session.Log) [][]byte {
	out := make([][]byte, len(logs))
	for i, l := range logs {
		out[i] = session.Encode(&l.Header, l.Events)
	}
	return out
}

// firstDifference names the first line in which two replays' logs differ.
func firstDifference(want, got [][]byte, logs []*session.Log) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d sessions instead of %d", len(got), len(want))
	}
	for i := range want {
		a, b := strings.Split(string(want[i]), "\n"), strings.Split(string(got[i]), "\n")
		for k := range max(len(a), len(b)) {
			la, lb := lineAt(a, k), lineAt(b, k)
			if la != lb {
				return fmt.Sprintf("session %s line %d:\n  replay 1: %s\n  this one: %s", logs[i].Header.ID, k+1, la, lb)
			}
		}
	}
	return ""
}

func lineAt(lines []string, k int) string {
	if k >= len(lines) {
		return "(no line)"
	}
	if len(lines[k]) > 200 {
		return lines[k][:200] + "..."
	}
	return lines[k]
}

// watchStore keeps every write its store refused, which a runtime may
// have swallowed (a child's failure becomes its parent's tool result), and
// the header of every session created, in order.
type watchStore struct {
	persistence.Store
	mu      sync.Mutex
	errs    []error
	created []session.Header
	cut     []cutSeed
}

// cutSeed is a fork child whose seed, as handed to Create, does not end
// at a turn/end.
type cutSeed struct{ id, problem string }

// Delete removes sessions, as a recording refused for a secret asks of
// its side store: without it the refusal would say to delete them by
// hand from a store nobody can reach.
func (w *watchStore) Delete(ctx context.Context, ids ...string) error {
	d, ok := w.Store.(persistence.Deleter)
	if !ok {
		return errors.ErrUnsupported
	}
	return d.Delete(ctx, ids...)
}

func (w *watchStore) keep(err error) error {
	if err != nil {
		w.mu.Lock()
		w.errs = append(w.errs, err)
		w.mu.Unlock()
	}
	return err
}

func (w *watchStore) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	err := w.Store.Create(ctx, h, seed)
	if err == nil {
		w.mu.Lock()
		w.created = append(w.created, h)
		if n := h.SeedLength; n > 0 && n <= len(seed) && session.CompletedPrefix(seed[:n]) != n {
			last := &seed[n-1]
			w.cut = append(w.cut, cutSeed{h.ID, fmt.Sprintf("session %s (parent %s): seedLength %d ends its seed at seq %d (%s), not at a turn/end: a fork child inherits its parent's events through the parent's last turn/end before the fork, whole turns only",
				h.ID, h.ParentSession, n, last.Seq, last.Type)})
		}
		w.mu.Unlock()
	}
	return w.keep(err)
}

func (w *watchStore) headers() []session.Header {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.created)
}

func (w *watchStore) Append(ctx context.Context, id string, events []session.Event) error {
	return w.keep(w.Store.Append(ctx, id, events))
}

func (w *watchStore) cutSeeds() []cutSeed {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.cut)
}

func (w *watchStore) refused() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.errs)
}
