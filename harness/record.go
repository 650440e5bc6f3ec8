package harness

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/envvar"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/apis"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/recorder"
)

// Recording from a test. The CLI records with the reference runtime only;
// a team's own runtime records from its own test binary, the way Go's
// record/replay tools do: -record=REGEXP (or AGENTSNAP_RECORD=REGEXP, see
// flags.go) re-records, before replaying it, every scenario whose
// CATEGORY/NAME matches. The answers come from the scenario's
// playbook.json, or from a live model (any API agentsnap speaks) when
// AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key variable are all set. The
// guarantees are the CLI's: all or nothing, the key tripwire (the key
// variables, the agent's credential headers, and the variables
// AGENTSNAP_SECRET_VARS names), live failures refuse, and no recording
// under CI unless AGENTSNAP_FORCE_UPDATE=1. -record-only-changed (or -record-session=PATH)
// re-records only what changed, as record --only-changed (--session) does.

// recordPattern returns the -record (or AGENTSNAP_RECORD) pattern, or nil.
func recordPattern() (*regexp.Regexp, error) {
	expr := recordExpr()
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("harness: -record (or AGENTSNAP_RECORD) %q is not a regular expression: %w; give one that matches CATEGORY/NAME, such as '^fork/codeword$'", expr, err)
	}
	return re, nil
}

// recordMu keeps two tests from recording one folder at once.
var recordMu sync.Map // dir -> *sync.Mutex

// RecordAsked reports whether -record (or AGENTSNAP_RECORD) asks to
// re-record the scenario in dir, for a test that records it its own way
// (an agent in another process, through agentsnap serve). The error is a
// bad pattern, or CI refusing a recording that was asked for.
func RecordAsked(dir string) (bool, error) {
	re, err := recordPattern()
	if err != nil || re == nil || !re.MatchString(Name(dir)) {
		return false, err
	}
	if ci, refused := fixture.WritesRefused(); refused {
		return false, fmt.Errorf("harness: refusing to record %s with CI=%s: CI replays fixtures, it does not write them; record locally, or set AGENTSNAP_FORCE_UPDATE=1 to force", Name(dir), ci)
	}
	return true, nil
}

// recordIfAsked re-records dir with rt when -record matches its name.
func recordIfAsked(t testing.TB, dir string, rt agentsnap.Runtime) error {
	t.Helper() // its log lines point at the test that called Run
	if asked, err := RecordAsked(dir); !asked {
		return err
	}
	opts, err := recordOptions(dir)
	if err != nil {
		return err
	}
	opts.Runtime, opts.By = rt, recorder.ByTests
	opts.OnlyChanged, opts.Session = recordOnlyChanged()
	// -record with -update accepts the new transcript at once; -record
	// alone leaves it beside the golden for review.
	opts.ReplaceGolden = UpdateRequested()
	opts.Logf = engineLogf(t)
	m, _ := recordMu.LoadOrStore(dir, &sync.Mutex{})
	m.(*sync.Mutex).Lock()
	defer m.(*sync.Mutex).Unlock()
	res, err := recorder.Record(context.Background(), dir, opts)
	if err != nil {
		return err
	}
	what := "recorded"
	if res.Unchanged {
		what = "recorded (unchanged)"
	}
	t.Logf("harness: %s %s: %s, %s", what, Name(dir), english.Count(res.Sessions, "session"), english.Count(res.Calls, "model call"))
	if res.Reuse != nil {
		lines := res.Reuse.Lines()
		for i, l := range lines {
			lines[i] = termtext.String(l) // session keys and drift came from a model
		}
		t.Logf("harness: %s: %s", Name(dir), strings.Join(lines, "\n  "))
	}
	if res.Proposal != "" {
		t.Logf("harness: %s: the transcript changed; it waits beside the golden, %s: review it (%s), or record with -update to replace the golden", Name(dir), res.Proposal, judge.ReviewDir(dir))
	}
	for _, e := range res.ToolErrors {
		t.Logf("harness: %s: %s", Name(dir), termtext.String(e))
	}
	return nil
}

// recordOptions picks the model: live when the environment names one
// completely, else the playbook. A live recording calls each request in the
// API the agent speaks (what the wire layer decoded), or in AGENTSNAP_API.
func recordOptions(dir string) (recorder.Options, error) {
	// Every key variable and the base URL's credentials; the live driver
	// adds what it sends.
	creds := secret.FromEnv(os.Getenv)
	secrets := creds.Values()
	baseURL, model := os.Getenv("AGENTSNAP_BASE_URL"), os.Getenv("AGENTSNAP_MODEL")
	switch {
	case baseURL == "" && model == "":
		opts, err := recorder.PlaybookOptions(dir, 0)
		opts.Secrets = secrets
		return opts, err
	case baseURL == "" || model == "":
		return recorder.Options{}, fmt.Errorf("harness: recording %s live needs AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key (AGENTSNAP_API_KEY, or the API's own: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ...); unset both AGENTSNAP_BASE_URL and AGENTSNAP_MODEL to record from playbook.json", Name(dir))
	}
	logger := slog.New(slog.NewTextHandler(creds.Writer(os.Stderr), &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := apis.NewRouter(strings.TrimSpace(os.Getenv("AGENTSNAP_API")), live.Config{BaseURL: baseURL, Model: model, Logger: logger}, os.Getenv)
	if err != nil {
		return recorder.Options{}, fmt.Errorf("harness: recording %s live: %w", Name(dir), err)
	}
	opts := recorder.LiveOptions(r, creds.Redact(live.RedactURL(baseURL)), model)
	opts.Provider = apis.Routed
	if a, ok := r.Fixed(); ok {
		opts.Provider = apis.Provider(a)
	}
	opts.Secrets = secrets
	opts.KeepLiveFailures = envvar.On("AGENTSNAP_KEEP_LIVE_FAILURES")
	return opts, nil
}
