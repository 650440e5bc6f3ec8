package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm/apis"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

// version is written into recordings.
const version = "agentsnap v0.1.0"

func init() {
	register(&command{
		name:    "record",
		args:    "DIR [--live --base-url URL --model M [--api API]] [--only-changed] [--session PATH] [--replace-golden] [--keep-live-failures] [--provider NAME] [--store SPEC] [--pace D]",
		summary: "record a scenario from its playbook, or from a live model with --live",
		order:   20,
		detail: `
Runs the scenario in DIR (its prompts, each a user turn of the root) through
agentsnap's reference runtime and writes session.jsonl, session.<n>.jsonl
(children in lineage order), transcript.golden and the recording metadata in
scenario.json. A runtime of your own records from its tests instead
(-record=REGEXP; see the README, "Test your own agent").

Without --live the model's answers come from DIR/playbook.json: no key, no
network, and a fixed clock, so re-recording an unchanged playbook changes no
file. With --live they come from a live model in the API --api (or
AGENTSNAP_API) names, OpenAI Chat Completions by default (OpenAI, DeepSeek,
vLLM, Ollama): the URL from --base-url or AGENTSNAP_BASE_URL (there is no
default host), the model from --model or AGENTSNAP_MODEL, the key from
AGENTSNAP_API_KEY, else the API's own variables, in this order:
OPENAI_API_KEY then DEEPSEEK_API_KEY (openai-chat), OPENAI_API_KEY
(openai-responses), ANTHROPIC_API_KEY (anthropic-messages), GOOGLE_API_KEY
then GEMINI_API_KEY (gemini). The key goes as the API carries it: a bearer
token, x-api-key, x-goog-api-key.

All or nothing: a failed, cancelled or killed recording leaves the previous
fixture byte-identical. A live model call or token count that fails outside
the model — the network, the key (401/403), an unknown model (404), a server
error after the retries — and that the agent did not recover from (by
retrying the call, by counting the request again) fails the recording;
--keep-live-failures records such failures on purpose. A live call in which
the model called a tool other than a function tool, which a session log
cannot record, fails it too, saying what to change in the agent. A
recording that would contain a credential — the value of a key variable
(AGENTSNAP_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY, GOOGLE_API_KEY), of the Authorization header, of a
credential in the base URL's query (?key=...) or user info, of each
variable AGENTSNAP_SECRET_VARS names (NAME,NAME: the names of variables,
never values) — is refused, and nothing is written, the --store included;
no output or error shows one.

A recording whose transcript differs from the transcript.golden there keeps
the golden and writes the new transcript beside it, transcript.golden.new,
for "agentsnap review" (or --replace-golden replaces it at once).

Under CI (CI set to anything but "", 0, false, no or off) record refuses
and writes nothing, as check --update and review --accept refuse: CI
replays fixtures, it does not write them. AGENTSNAP_FORCE_UPDATE=1 records
anyway.

--only-changed re-records only what changed: every session replays its
recorded calls while the agent's requests match them (the model, the system
prompt, the tools, the conversation, the settings) and asks the model from
its first call that does not; a session created after its parent went to
the model is recorded fresh, and a session that never changed keeps its
log byte for byte. A session that still replays gets its recorded tool
outputs and MCP answers, and its tools do not run: a tool whose answer
changed since (the reason it is recorded) re-records nothing. A session
that goes to the model runs its tools and asks the MCP servers from then
on, and records their new answers. The summary names every session
re-recorded, from which call, why, and what the calls sent to the model cost
(tokens, from their usage; money too with scenario.json's prices). --session
PATH (a lineage path such as root/call_1; implies --only-changed) re-records
that session and its subtree on purpose, a model upgraded behind the same
name say, and keeps everything else.

When to use record versus -update: record re-runs the agent against the
model and rewrites the session logs, the replay's source; -update (or
"agentsnap check --update") rewrites only transcript.golden from a replay of
the logs you have.

Exit status 0 when recorded (or unchanged), 1 when the recording fails or is
refused, 2 on bad usage.`,
		flags: func() *flag.FlagSet { return new(recordFlags).set() },
		run:   runRecord,
	})
}

// recordFlags are the flags of record.
type recordFlags struct {
	live, keep, replace  bool
	baseURL, model, prov string
	api                  string // --api: the model API a live recording calls
	storeSpec            string
	pace                 time.Duration
	onlyChanged          bool   // --only-changed
	session              string // --session
	sessionGiven         bool   // --session was given, maybe as ""
}

func (f *recordFlags) set() *flag.FlagSet {
	fs := newFlagSet("record")
	fs.BoolVar(&f.live, "live", false, "record from a live model (OpenAI-compatible, OpenAI Responses, Anthropic, Gemini: --api) instead of playbook.json")
	fs.StringVar(&f.baseURL, "base-url", "", "the endpoint's base `URL`, such as https://api.openai.com/v1 (with --live; default $AGENTSNAP_BASE_URL)")
	fs.StringVar(&f.model, "model", "", "the model `M` the endpoint serves (with --live; default $AGENTSNAP_MODEL)")
	fs.StringVar(&f.api, "api", "", "the model `API` to call with --live: "+apis.Names()+" (default $AGENTSNAP_API, else openai-chat)")
	fs.BoolVar(&f.keep, "keep-live-failures", false, "keep live calls and token counts that failed outside the model (network, key, server) in the fixture")
	fs.BoolVar(&f.replace, "replace-golden", false, "replace a transcript.golden the new transcript differs from, instead of proposing transcript.golden.new for review")
	fs.StringVar(&f.prov, "provider", "", "the provider `NAME` recorded in request headers (default: playbook; with --live the API's name, openai-compatible for openai-chat)")
	fs.StringVar(&f.storeSpec, "store", "", "also persist the sessions while recording, into the store `SPEC`: jsonl:DIR (a folder of logs) or sqlite:PATH (a database file), empty (one an earlier run filled is refused before the agent runs)")
	fs.DurationVar(&f.pace, "pace", 0, "pause `D` between the playbook's chunks, like a live stream (e.g. 20ms)")
	f.onlyChangedFlags(fs, "")
	return fs
}

// onlyChangedFlags adds --only-changed and --session to fs, their usage
// after prefix.
func (f *recordFlags) onlyChangedFlags(fs *flag.FlagSet, prefix string) {
	fs.BoolVar(&f.onlyChanged, "only-changed", false, prefix+"replay every recorded call whose request still matches and ask the model only from each session's first call that changed")
	fs.Var(givenString{&f.session, &f.sessionGiven}, "session", prefix+"re-record the session at this lineage `PATH` (such as root/call_1) and its subtree, keep the rest (implies --only-changed)")
}

// givenString is a string flag that also records that it was given: an
// empty value (an unset variable in a script) is then told from no flag.
type givenString struct {
	s     *string
	given *bool
}

func (g givenString) String() string {
	if g.s == nil {
		return ""
	}
	return *g.s
}

func (g givenString) Set(v string) error {
	*g.s, *g.given = v, true
	return nil
}

// checkSession says what is wrong with --session, if anything.
func (f *recordFlags) checkSession() error {
	if f.sessionGiven && f.session == "" {
		// Else it would re-record every session, the opposite of asking for one.
		return fmt.Errorf(`--session is empty; give a lineage path such as root or root/call_1, as the summary of --only-changed shows them, or leave --session out to re-record every session`)
	}
	if f.session != "" && (f.session != "root" && !strings.HasPrefix(f.session, "root/") || strings.HasSuffix(f.session, "/")) {
		return fmt.Errorf("--session %q: give a lineage path such as root or root/call_1, as the summary of --only-changed shows them", f.session)
	}
	return nil
}

// reuse sets the options of --only-changed and --session.
func (f *recordFlags) reuse(opts *recorder.Options) {
	opts.OnlyChanged, opts.Session = f.onlyChanged || f.session != "", f.session
}

func runRecord(ctx context.Context, e *env, args []string) int {
	var f recordFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "record", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "record", "want one scenario folder DIR, got %d arguments", len(pos))
	}
	if err := errors.Join(checkPace(f.pace), f.checkSession()); err != nil {
		return usageError(e, "record", "%v", err)
	}
	dir := e.path(pos[0])
	if err := oneScenario("record", pos[0], dir); err != nil {
		return fail(e, "record", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if aside := fixture.MovedAside(dir); aside != nil {
			return fail(e, "record", aside) // not "new": the next recording would delete the copy aside
		}
		return fail(e, "record", fmt.Errorf("%s is not a scenario folder; create one with: go tool agentsnap new CATEGORY/NAME", pos[0]))
	}
	if err := linkOutOfTree(dir); err != nil {
		return fail(e, "record", err)
	}
	if err := recordRefused(pos[0]); err != nil {
		return fail(e, "record", err)
	}
	var opts recorder.Options
	if f.live {
		opts, err = liveOptions(e, &f, false)
		if err != nil {
			return usageError(e, "record", "%v", err)
		}
	} else {
		if f.baseURL != "" || f.model != "" || f.keep || f.api != "" {
			return usageError(e, "record", "--base-url, --model, --api and --keep-live-failures only apply with --live")
		}
		if opts, err = recorder.PlaybookOptions(dir, f.pace); err != nil {
			return fail(e, "record", err)
		}
	}
	if err := referenceOnly(dir); err != nil {
		return fail(e, "record", err)
	}
	opts.Runtime = agent.Reference
	opts.By, opts.Progress, opts.ReplaceGolden = version, e.stderr, f.replace
	f.reuse(&opts)
	opts.Secrets = keySecrets(e, f.baseURL)
	if f.prov != "" {
		opts.Provider = f.prov
	}
	if f.storeSpec != "" {
		spec, err := open.Parse(f.storeSpec)
		if err != nil {
			return usageError(e, "record", "--store: %v", err)
		}
		spec.Path = e.path(spec.Path)
		opts.Store = func(ctx context.Context) (persistence.Store, error) {
			s, err := spec.Store(ctx)
			if err != nil && persistence.OpenAdvice(err) == persistence.OpenAdvice(nil) {
				// The recorder adds the advice it recognises; the rest is
				// the CLI's, for the path it was given.
				err = fmt.Errorf("%w; %s", err, persistence.OpenAdvice(err))
			}
			return s, err
		}
	}
	opts.Logf = func(format string, args ...any) {
		warn(e, "record", "warning: "+format, args...)
	}
	res, err := recorder.Record(ctx, dir, opts)
	if err != nil {
		return fail(e, "record", err)
	}
	printRecorded(e, pos[0], res)
	return exitOK
}

// linkOutOfTree refuses a scenario folder whose category folder or own
// folder is a symlink that leads out of the fixtures tree — the folder
// above the category. A recording replaces the folder a path resolves to,
// so through such a link it would write outside the tree it was asked to
// write in. The error names the link and where it leads.
func linkOutOfTree(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	cat := filepath.Dir(abs)
	root, err := filepath.EvalSymlinks(filepath.Dir(cat))
	if err != nil {
		return err
	}
	for _, p := range []string{cat, abs} {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%s is a symlink that cannot be followed: %w; remove the link", p, err)
		}
		if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			real, _ := filepath.EvalSymlinks(abs)
			return fmt.Errorf("%s is a symlink to %s, outside the fixtures tree %s; record writes only inside the tree it is given: replace the link with a real folder, or record the scenario where it is: go tool agentsnap record %s", p, target, filepath.Dir(cat), real)
		}
	}
	return nil
}

// keySecrets returns what a recording must never contain nor show: the
// value of every key variable (those of the other model APIs too) and the
// credentials of the base URL, from AGENTSNAP_BASE_URL and --base-url. The
// live driver adds what it sends.
func keySecrets(e *env, baseURL string) map[string]string {
	s := secret.FromEnv(e.getenv)
	s.AddURL("--base-url", baseURL)
	return s.Values()
}

// liveOptions builds the live model from the flags and the environment.
// routed (serve) calls each request in the API it came in unless --api or
// AGENTSNAP_API names one; record calls the reference agent's requests in
// the named API, else Chat Completions.
func liveOptions(e *env, f *recordFlags, routed bool) (recorder.Options, error) {
	baseURL := f.baseURL
	if baseURL == "" {
		baseURL = strings.TrimSpace(e.getenv("AGENTSNAP_BASE_URL"))
	}
	if baseURL == "" {
		return recorder.Options{}, fmt.Errorf("--live needs the endpoint: give --base-url URL or set AGENTSNAP_BASE_URL (e.g. https://api.openai.com/v1, https://api.anthropic.com, https://generativelanguage.googleapis.com, http://localhost:11434/v1)")
	}
	model := f.model
	if model == "" {
		model = strings.TrimSpace(e.getenv("AGENTSNAP_MODEL"))
	}
	if model == "" {
		return recorder.Options{}, fmt.Errorf("--live needs the model: give --model M or set AGENTSNAP_MODEL")
	}
	api := f.api
	if api == "" {
		api = strings.TrimSpace(e.getenv("AGENTSNAP_API"))
	}
	if api == "" && !routed {
		api = apis.Default
	}
	secrets := secret.New()
	secrets.AddAll(keySecrets(e, f.baseURL))
	logger := slog.New(slog.NewTextHandler(secrets.Writer(e.stderr), &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := apis.NewRouter(api, live.Config{BaseURL: baseURL, Model: model, Logger: logger}, e.getenv)
	if err != nil {
		return recorder.Options{}, err
	}
	where := secrets.Redact(live.RedactURL(baseURL))
	opts := recorder.LiveOptions(r, where, model)
	if a, ok := r.Fixed(); ok {
		fmt.Fprintf(e.stderr, "record: live model %s at %s, %s (key from %s)\n", printable(model), printable(where), a.Title, r.KeyVar(a.Name))
		opts.Provider = apis.Provider(a)
	} else {
		fmt.Fprintf(e.stderr, "record: live model %s at %s, each call in the API the agent speaks\n", printable(model), printable(where))
		opts.Provider = apis.Routed
	}
	opts.KeepLiveFailures = f.keep
	return opts, nil
}

// recordRefused refuses to record dir under CI unless
// AGENTSNAP_FORCE_UPDATE is on: a CI job checks fixtures, and a recording
// there would rewrite session logs and goldens no one reviews. It asks
// fixture.WritesRefused, which reads the process's environment, as check
// --update, review and the harness's -record do: one rule read from one
// place (see env.getenv).
func recordRefused(dir string) error {
	ci, refused := fixture.WritesRefused()
	if !refused {
		return nil
	}
	return fmt.Errorf("refusing to record %s with CI=%s: CI replays fixtures, it does not write them; record locally, or set AGENTSNAP_FORCE_UPDATE=1 to force", dir, ci)
}

func printRecorded(e *env, name string, res *recorder.Result) {
	name = printable(name) // a folder's name, as check and the progress lines show it
	if res.Unchanged {
		fmt.Fprintf(e.stdout, "recorded %s: %s, %s; unchanged, nothing written\n", name, english.Count(res.Sessions, "session"), english.Count(res.Calls, "model call"))
	} else {
		fmt.Fprintf(e.stdout, "recorded %s: %s, %s\n", name, english.Count(res.Sessions, "session"), english.Count(res.Calls, "model call"))
		// What changed, not every file of the fixture: a kept golden or
		// an unchanged child log is not "wrote".
		if len(res.Changed) > 0 {
			fmt.Fprintf(e.stdout, "  wrote %s\n", strings.Join(res.Changed, ", "))
		}
		if len(res.Removed) > 0 {
			fmt.Fprintf(e.stdout, "  removed %s\n", strings.Join(res.Removed, ", "))
		}
	}
	if res.Reuse != nil {
		for _, line := range res.Reuse.Lines() {
			// Sessions are named by their creating calls' ids, and a
			// drift quotes what the agent sent: both came from a model.
			fmt.Fprintf(e.stdout, "  %s\n", printable(line))
		}
	}
	if res.Proposal != "" {
		fmt.Fprintf(e.stdout, "  the transcript changed: transcript.golden is kept and the new one waits beside it, %s;\n  review it with: go tool agentsnap review %s\n", printable(res.Proposal), name)
	}
	if len(res.ToolErrors) > 0 {
		fmt.Fprintf(e.stdout, "  %s returned an error (recorded as the agent saw it; check the tool names and arguments):\n", english.Count(len(res.ToolErrors), "tool call"))
		for _, t := range res.ToolErrors {
			fmt.Fprintf(e.stdout, "    %s\n", printable(t))
		}
	}
}

// referenceOnly refuses to record, with agentsnap's reference agent, a
// scenario another runtime recorded: the next replay of the user's
// runtime would fail on the reference agent's logs. Such a scenario is
// re-recorded from its test, or by serve for an agent in another process.
func referenceOnly(dir string) error {
	sc, err := scenario.Load(dir)
	if err != nil {
		return err
	}
	rec := sc.Recorded
	name := fixture.Name(dir)
	if rec != nil && rec.Runtime == "" && rec.By == recorder.ByTests {
		// A runtime without a name leaves none to compare, but a test
		// recorded it, and a test's runtime is the user's, not ours.
		return fmt.Errorf("%s was recorded from a test (scenario.json recorded.by %q) by a runtime without a name, and agentsnap record records agentsnap's own reference agent only; re-record it from the test that replays it: go test ./YOUR/PACKAGE -record='^%s$' (or AGENTSNAP_RECORD='^%s$'); a runtime that implements agentsnap.Named has its name recorded, and check and record name it", dir, rec.By, name, name)
	}
	if rec == nil || rec.Runtime == "" || rec.Runtime == agentsnap.ReferenceName {
		return nil
	}
	return fmt.Errorf("%s was recorded with the runtime %q, and agentsnap record records agentsnap's own reference agent only; re-record it the way it was made: from the test that replays it, go test ./YOUR/PACKAGE -record='^%s$' (or AGENTSNAP_RECORD='^%s$'), or, for an agent in another process, go tool agentsnap serve --record --runtime %s %s and run the agent against the URL it prints", dir, rec.Runtime, name, name, rec.Runtime, dir)
}
