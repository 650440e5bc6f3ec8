package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Schedule search. An agent that runs subagents or tools concurrently must
// write the same logs whatever order they finish in. A replay controls
// when every model call of every session answers (fakellm.WithSchedule),
// so it can try orders on purpose: a search replays the scenario under n
// seeded schedules, seeds base, base+1, ... (0 is skipped), and requires
// every replay to match the recording and all of them to write the same
// bytes. A failure names the two schedules that differ, their first
// differing event, and the flag that replays the failing schedule alone,
// the same way every time: -schedule-seed=S (or AGENTSNAP_SCHEDULE_SEED=S),
// with which Run and Replay replay exactly that schedule and
// SearchSchedules searches only it.
//
// A search is asked by Options.Schedules, by scenario.json's "schedules"
// member, by AGENTSNAP_SCHEDULES=N for a whole test run (it overrides both;
// 0 turns searches off), or by agentsnap check --schedules N. Only a
// Replay's own outcome (schedule 0) persists through Options.Store; the
// other schedules persist in memory.
//
// In a test (Options.Hints.Test set), AGENTSNAP_SCHEDULE_SEED replays the
// one schedule of that seed and AGENTSNAP_SCHEDULES=N searches N schedules
// whatever Options and scenario.json say (0 turns searches off); the test
// adapter's -schedule-seed flag sets Options.OnlySeed, which beats both.

// Environment variables of the schedule search, read by tests (the
// agentsnap CLI has flags instead).
const (
	SchedulesVar    = "AGENTSNAP_SCHEDULES"
	ScheduleSeedVar = "AGENTSNAP_SCHEDULE_SEED"
)

// ErrScheduleDependent is wrapped by ScheduleResult.Err: the replayed
// logs depend on the order concurrent calls finish in.
var ErrScheduleDependent = errors.New("the replay depends on the schedule")

// ScheduleResult is the verdict of a schedule search.
type ScheduleResult struct {
	Fixture *fixture.Fixture
	Seeds   []int64 // the seed of each schedule, in the order replayed
	// Diverged is the first schedule whose logs differ, byte for byte,
	// from schedule 0's, or -1; Difference is their first differing event
	// (Golden is schedule 0's value, Replay Diverged's), Divergent how
	// many schedules differ from schedule 0.
	Diverged   int
	Difference *Difference
	Divergent  int
	// Unmatched is the first schedule whose replay does not match the
	// recording, or -1; Mismatch is its outcome, Mismatches how many.
	Unmatched  int
	Mismatch   *Outcome
	Mismatches int

	commands commands
	// secrets is the set of the search's context, as an Outcome's is: a
	// user's test prints Report and Err itself, and the drift, the
	// differences and the errors they quote may hold what the agent sent.
	secrets *secret.Set
}

// Passed reports whether every schedule matched the recording and wrote
// the same logs.
func (r *ScheduleResult) Passed() bool { return r.Diverged < 0 && r.Unmatched < 0 }

// Err returns nil when the search passed, else an error wrapping
// ErrScheduleDependent whose message is Report.
func (r *ScheduleResult) Err() error {
	if r.Passed() {
		return nil
	}
	// The message is made now: schedule 0's outcome, which this result
	// may report, is about to hold the error.
	msg := fmt.Sprintf("judge: %s: %s", ErrScheduleDependent, strings.TrimRight(r.Report(), "\n"))
	return &scheduleError{msg: msg, diverged: r.Diverged >= 0}
}

// scheduleError is ScheduleResult.Err's error; an Outcome's report reads
// from it whether the schedules wrote different logs.
type scheduleError struct {
	msg      string
	diverged bool
}

func (e *scheduleError) Error() string { return e.msg }

func (e *scheduleError) Unwrap() error { return ErrScheduleDependent }

// Reproduce returns the seed of the schedule to replay alone with
// -schedule-seed: the first that does not match the recording, else the
// first whose logs differ from schedule 0's; 0 when the search passed.
func (r *ScheduleResult) Reproduce() int64 {
	switch {
	case r.Unmatched >= 0:
		return r.Seeds[r.Unmatched]
	case r.Diverged >= 0:
		return r.Seeds[r.Diverged]
	}
	return 0
}

// Report explains the verdict: which schedules differ, where first, how
// the failing one differs from the recording, and the command that
// replays it alone. The secrets of the search's context show as
// [REDACTED], as in Outcome.Report; so does Err.
func (r *ScheduleResult) Report() string { return r.secrets.Redact(r.report()) }

func (r *ScheduleResult) report() string {
	name, seeds := r.Fixture.Name, seedRange(r.Seeds)
	if r.Passed() {
		return fmt.Sprintf("%s: the replay matches the recording, byte for byte, under %d %s (%s)", name, len(r.Seeds), english.Plural(len(r.Seeds), "schedule"), seeds)
	}
	if len(r.Seeds) > 1 && r.Diverged < 0 && r.Mismatches == len(r.Seeds) {
		return fmt.Sprintf("%s: the replay fails under every schedule (%s), as it does without one:\n%s", name, seeds, r.Mismatch.Report())
	}
	var b strings.Builder
	if len(r.Seeds) == 1 {
		fmt.Fprintf(&b, "%s: under %s the replay does not match the recording\n", name, r.schedule(0))
	} else {
		fmt.Fprintf(&b, "%s: of %d schedules (%s), %d wrote other logs than schedule 0 and %d do not match the recording\n", name, len(r.Seeds), seeds, r.Divergent, r.Mismatches)
	}
	if r.Diverged >= 0 {
		fmt.Fprintf(&b, "\n%s and %s wrote different logs; the first difference [%s, %s]:\n  %s\n",
			r.schedule(0), r.schedule(r.Diverged), r.short(0), r.short(r.Diverged), indent(r.Difference.between(r.short(0), r.short(r.Diverged))))
	}
	if r.Unmatched >= 0 {
		fmt.Fprintf(&b, "\n%s does not match the recording [golden = the fixture, replay = that schedule]:\n", r.schedule(r.Unmatched))
		for _, l := range mismatchLines(r.Mismatch) {
			fmt.Fprintf(&b, "  %s\n", indent(l))
		}
	}
	switch {
	case len(r.Seeds) > 1 && r.Diverged >= 0:
		b.WriteString("\nThe runtime lets the order in which concurrent calls finish into its logs (tool results appended as subagents finish, say); write them in call order. Re-recording does not help: the next run may finish in another order.\n")
	case len(r.Seeds) > 1:
		b.WriteString("\nEvery schedule wrote the same logs, but the replay fails under some of them only: what the runtime does depends on the order in which concurrent calls finish (state shared between subagents, a timeout). Re-recording does not help: the next run may finish in another order.\n")
	}
	seed := r.Reproduce()
	fmt.Fprintf(&b, "Replay that schedule alone, the same way every time, with:\n  %s\n", r.commands.schedule(r.Fixture, seed))
	return b.String()
}

// schedule names schedule i: "schedule 17 (seed 18)".
func (r *ScheduleResult) schedule(i int) string {
	return fmt.Sprintf("schedule %d (seed %d)", i, r.Seeds[i])
}

func (r *ScheduleResult) short(i int) string { return fmt.Sprintf("schedule %d", i) }

// between shows a difference of two replays, labelled a and b.
func (d Difference) between(a, b string) string {
	switch {
	case d.Note != "":
		return fmt.Sprintf("%s (%s): %s", d.Session, d.Lineage, d.Note)
	case d.Seq < 0:
		return fmt.Sprintf("%s (%s): header %s: %s %s, %s %s", d.Session, d.Lineage, d.Field, a, d.Golden, b, d.Replay)
	}
	return fmt.Sprintf("%s (%s): seq %d (%s%s): %s: %s %s, %s %s", d.Session, d.Lineage, d.Seq, d.Type, d.of(), d.Field, a, d.Golden, b, d.Replay)
}

// mismatchLines is what makes o differ from its recording, most telling
// first, without the advice to re-record.
func mismatchLines(o *Outcome) []string {
	var out []string
	if o.Drift != nil {
		out = append(out, o.Drift.Kind()+": "+o.Drift.String())
	}
	for _, d := range o.Differences {
		out = append(out, d.String())
	}
	if o.Consumption != nil {
		out = append(out, "replay driver: "+o.Consumption.Error())
	}
	for _, e := range o.RunErrors {
		out = append(out, "replay error: "+e.Error())
	}
	out = append(out, o.RuleViolations...)
	return out
}

// SearchSchedules replays fx under n seeded schedules, seeds from
// opts.ScheduleSeed (0 means 1) on, and compares every replay with the
// recording and with schedule 0's, byte for byte. Under -schedule-seed (or
// AGENTSNAP_SCHEDULE_SEED) it replays only that schedule, and
// AGENTSNAP_SCHEDULES overrides n, except for the CLI (opts.FromCLI). The
// error is for a replay that could not run at all.
func SearchSchedules(ctx context.Context, fx *fixture.Fixture, opts Options, n int) (*ScheduleResult, error) {
	seeds, err := searchSeeds(opts, n)
	if err != nil {
		return nil, fmt.Errorf("judge: %s: %w", fx.Name, err)
	}
	return search(ctx, fx, opts, seeds, nil)
}

// searchSeeds resolves the seeds SearchSchedules replays.
func searchSeeds(opts Options, n int) ([]int64, error) {
	if opts.OnlySeed != 0 {
		return []int64{opts.OnlySeed}, nil
	}
	if opts.Hints.Test != nil {
		s, err := fromEnv(opts.ScheduleSeed)
		switch {
		case err != nil:
			return nil, err
		case s != nil && s.named:
			return []int64{s.seed}, nil
		case s != nil:
			return s.seeds, nil
		}
	}
	if n < 0 || n > scenario.SchedulesLimit {
		return nil, fmt.Errorf("%d schedules: want 0 to %d, such as 50", n, scenario.SchedulesLimit)
	}
	return seedsFrom(opts.ScheduleSeed, n), nil
}

// search replays fx under each seed; first, if set, is schedule 0's
// outcome already.
func search(ctx context.Context, fx *fixture.Fixture, opts Options, seeds []int64, first0 *Outcome) (*ScheduleResult, error) {
	r := &ScheduleResult{Fixture: fx, Seeds: seeds, Diverged: -1, Unmatched: -1, commands: opts.commands(), secrets: secret.FromContext(ctx)}
	// The playbook is read once: every schedule shares its verdict.
	var stale string
	if first0 != nil {
		stale = first0.Stale
	} else {
		stale = stalePlaybook(fx, r.commands)
	}
	var first []*session.Log
	var firstBytes string
	for i, seed := range seeds {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("judge: %s: schedule search stopped at schedule %d: %w", fx.Name, i, err)
		}
		o := first0
		if i > 0 || o == nil {
			var err error
			if o, err = Replay(ctx, fx, scheduled(opts, seed, i)); err != nil {
				return nil, fmt.Errorf("judge: %s: schedule %d (seed %d): %w", fx.Name, i, seed, err)
			}
			o.Stale = stale
		}
		if opts.prepared == nil {
			opts.prepared = o.prepared // every schedule replays the scripts derived once
		}
		if !o.Passed() {
			if r.Unmatched < 0 {
				r.Unmatched, r.Mismatch = i, o
			}
			r.Mismatches++
		}
		text := encodeLogs(o.Replayed)
		if i == 0 {
			first, firstBytes = o.Replayed, text
			continue
		}
		if text != firstBytes {
			if r.Diverged < 0 {
				r.Diverged, r.Difference = i, firstDifference(first, o.Replayed)
			}
			r.Divergent++
		}
	}
	return r, nil
}

// scheduled returns the options of schedule i's replay.
func scheduled(opts Options, seed int64, i int) Options {
	opts.schedule = &seed
	opts.Schedules, opts.Store = 0, nil
	if i > 0 {
		opts.Logf = nil // the notes and warnings of schedule 0 said it all
	}
	return opts
}

// encodeLogs is every log as session.Encode writes it, in lineage order.
func encodeLogs(logs []*session.Log) string {
	var b strings.Builder
	for _, l := range logs {
		b.Write(session.Encode(&l.Header, l.Events))
		b.WriteByte('\n')
	}
	return b.String()
}

// CompareLogs compares two log trees the way MatchRecording compares a
// replay with its recording — sessions paired by lineage; times, creation
// times, machine paths and differing session ids normalised — and returns
// the first difference of each session that differs, in a's lineage order
// (Golden holds a's value, Replay b's).
func CompareLogs(a, b []*session.Log) []Difference {
	return diffTrees(a, b, "")
}

// firstDifference is the first difference of two trees whose bytes differ:
// CompareLogs's, else (they differ only in what it normalises) the first
// differing line.
func firstDifference(a, b []*session.Log) *Difference {
	if ds := CompareLogs(a, b); len(ds) > 0 {
		return &ds[0]
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		la := strings.Split(string(session.Encode(&a[i].Header, a[i].Events)), "\n")
		lb := strings.Split(string(session.Encode(&b[i].Header, b[i].Events)), "\n")
		for k := 0; k < len(la) && k < len(lb); k++ {
			if la[k] != lb[k] {
				return &Difference{Session: label(i), Lineage: lineage(a[i], a), Seq: int64(k - 1), Field: "line", Golden: abbrev(la[k]), Replay: abbrev(lb[k]),
					Note: fmt.Sprintf("line %d differs only in what the comparison with the recording normalises: %s against %s", k+1, abbrev(la[k]), abbrev(lb[k]))}
			}
		}
	}
	return &Difference{Session: "root", Lineage: "root session", Seq: -1, Note: "the logs differ in length"}
}

// scheduling is what a replay's options, flags and environment ask of
// schedules: one schedule to replay under, or seeds to search — the
// replay itself is then schedule 0.
type scheduling struct {
	seed  int64   // replay under this schedule; 0: none
	named bool    // seed was asked by the user, not by a search: say so
	seeds []int64 // search these; seeds[0] is seed
}

// searching returns the scheduling of a search of seeds.
func searching(seeds []int64) scheduling {
	if len(seeds) == 0 {
		return scheduling{seeds: seeds}
	}
	return scheduling{seed: seeds[0], seeds: seeds}
}

// fromEnv is what a test's flags and environment ask of its replays: the
// one schedule of -schedule-seed (or AGENTSNAP_SCHEDULE_SEED), else a
// search of AGENTSNAP_SCHEDULES seeds from base; nil when they ask
// nothing.
func fromEnv(base int64) (*scheduling, error) {
	seed, err := namedSeed()
	if err != nil {
		return nil, err
	}
	if seed != 0 {
		return &scheduling{seed: seed, named: true}, nil
	}
	n, ok, err := envSchedules()
	if err != nil || !ok {
		return nil, err
	}
	s := searching(seedsFrom(base, n))
	return &s, nil
}

// scheduling resolves, in order: a search's own replay; -schedule-seed or
// AGENTSNAP_SCHEDULE_SEED; Options.ScheduleSeed without Schedules; then
// the number of schedules to search, from AGENTSNAP_SCHEDULES,
// Options.Schedules or scenario.json. The CLI reads no flag or variable.
func (opts Options) scheduling(fx *fixture.Fixture) (scheduling, error) {
	if opts.schedule != nil {
		return scheduling{seed: *opts.schedule}, nil
	}
	if opts.Once {
		return scheduling{}, nil
	}
	if opts.OnlySeed != 0 {
		return scheduling{seed: opts.OnlySeed, named: true}, nil
	}
	n := opts.Schedules
	if opts.Hints.Test != nil {
		s, err := fromEnv(opts.ScheduleSeed)
		if err != nil {
			return scheduling{}, err
		}
		if s != nil {
			return *s, nil
		}
	}
	if opts.ScheduleSeed != 0 && n == 0 {
		return scheduling{seed: opts.ScheduleSeed, named: true}, nil
	}
	if n == 0 {
		n = fx.Scenario.Schedules
	}
	if n < 0 || n > scenario.SchedulesLimit {
		return scheduling{}, notMended{fmt.Errorf("judge: %s: %w: %d schedules: want 0 to %d, such as 50 (0: no search)", fx.Name, fixture.ErrFixture, n, scenario.SchedulesLimit)}
	}
	return searching(seedsFrom(opts.ScheduleSeed, n)), nil
}

// driverOptions are the replay driver's options for the schedule.
func (s scheduling) driverOptions() []fakellm.Option {
	if s.seed == 0 {
		return nil
	}
	return []fakellm.Option{fakellm.WithSchedule(s.seed)}
}

// search notes a named schedule, and searches the other seeds when o is
// schedule 0 of a search: a dependence on the schedule becomes one of o's
// errors. A failure every schedule shares is o's own, reported already.
func (s scheduling) search(ctx context.Context, fx *fixture.Fixture, opts Options, o *Outcome) error {
	if s.named {
		o.Notes = append(o.Notes, fmt.Sprintf("replayed under the schedule of seed %d", s.seed))
	}
	if len(s.seeds) < 2 {
		return nil
	}
	r, err := search(ctx, fx, opts, s.seeds, o)
	if err != nil {
		return err
	}
	if r.Diverged < 0 && r.Mismatches == len(r.Seeds) {
		return nil
	}
	if err := r.Err(); err != nil {
		o.RunErrors = append(o.RunErrors, err)
	}
	return nil
}

// namedSeed is AGENTSNAP_SCHEDULE_SEED; 0 when unset.
func namedSeed() (int64, error) {
	v := strings.TrimSpace(os.Getenv(ScheduleSeedVar))
	if v == "" {
		return 0, nil
	}
	seed, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("judge: %s=%q: want a schedule seed such as 18, as a failed schedule search prints it", ScheduleSeedVar, v)
	}
	return seed, nil
}

// envSchedules is AGENTSNAP_SCHEDULES; ok is false when it is unset.
func envSchedules() (int, bool, error) {
	v := strings.TrimSpace(os.Getenv(SchedulesVar))
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > scenario.SchedulesLimit {
		return 0, false, fmt.Errorf("judge: %s=%q: want a number of schedules such as 50 (0 turns the search off), at most %d", SchedulesVar, v, scenario.SchedulesLimit)
	}
	return n, true, nil
}

// seedsFrom returns n seeds from base (0 means 1) on, skipping 0, which
// means "no schedule" to -schedule-seed.
func seedsFrom(base int64, n int) []int64 {
	if base == 0 {
		base = 1
	}
	out := make([]int64, 0, n)
	for s := base; len(out) < n; s++ {
		if s != 0 {
			out = append(out, s)
		}
	}
	return out
}

// seedRange shows seeds: "seed 18", "seeds 1..50".
func seedRange(seeds []int64) string {
	switch {
	case len(seeds) == 0:
		return "no seeds"
	case len(seeds) == 1:
		return fmt.Sprintf("seed %d", seeds[0])
	}
	return fmt.Sprintf("seeds %d..%d", seeds[0], seeds[len(seeds)-1])
}

// schedule returns the command that replays fx under the one schedule of
// seed.
