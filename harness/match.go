package harness

import (
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/onsi/gomega/types"
)

// MatchRecording succeeds when a replay Outcome matches its recording. The
// failure message is the outcome's report: request drift first, the
// mis-routed session, the first difference of each log, and the command
// that re-records.
func MatchRecording() types.GomegaMatcher { return recordingMatcher{} }

type recordingMatcher struct{}

func (recordingMatcher) Match(actual any) (bool, error) {
	o, err := outcomeOf(actual, "MatchRecording")
	if err != nil {
		return false, err
	}
	markJudged(o)
	return o.Passed(), nil
}

func (recordingMatcher) FailureMessage(actual any) string {
	o, _ := outcomeOf(actual, "MatchRecording")
	return secretsOf(o).Redact(termtext.Lines(o.Report()))
}

func (recordingMatcher) NegatedFailureMessage(actual any) string {
	o, _ := outcomeOf(actual, "MatchRecording")
	return fmt.Sprintf("%s: expected the replay not to match its recording, but it does", o.Fixture.Name)
}

// MatchGolden succeeds when the replayed transcript equals transcript.golden,
// compared through goldie with t (pass GinkgoTB()). Under -update it
// rewrites the golden instead, when the replay matched and CI allows. The
// failure shows [diff -golden +replay] and the command that updates it.
func MatchGolden(t testing.TB) types.GomegaMatcher { return &goldenMatcher{t: t} }

type goldenMatcher struct {
	t       testing.TB
	res     judge.GoldenResult
	secrets *secret.Set // the outcome's (see redact.go)
}

func (m *goldenMatcher) Match(actual any) (bool, error) {
	o, err := outcomeOf(actual, "MatchGolden")
	if err != nil {
		return false, err
	}
	m.secrets = secretsOf(o)
	t := redacting(m.t, m.secrets)
	m.res = checkGolden(t, o)
	logUpdate(t, m.res)
	return m.res.Message == "", nil
}

func (m *goldenMatcher) FailureMessage(any) string {
	return m.secrets.Redact(termtext.Lines(m.res.Message))
}

func (m *goldenMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected the transcript to differ from %s, but it matches", m.res.Path)
}

func outcomeOf(actual any, matcher string) (*Outcome, error) {
	o, ok := actual.(*Outcome)
	if !ok || o == nil {
		return nil, fmt.Errorf("%s expects a *harness.Outcome (judge.Outcome), got %T", matcher, actual)
	}
	return o, nil
}
