package fakellm

import (
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Option configures a Driver.
type Option func(*options)

type options struct {
	derive    DeriveOptions
	deriver   Deriver
	override  *Override
	pace      time.Duration
	schedule  *schedule
	virtual   bool          // WithVirtualTime
	release   bool          // WithReleaseServed
	record    func() string // WithRecordCommand, WithRecordCommandFunc
	advice    string        // WithAdvice
	logf      func(format string, args ...any)
	callCheck func(c RecordedCall, req *llm.Request) error // WithCallCheck
	read      func(i int, l *session.Log)                  // WithRead

	// derives names a derivation option given (WithAttempts, ...), which
	// Recording.Driver refuses: its scripts are derived already.
	derives string
}

// WithAttempts selects which recorded attempts replay (default every).
func WithAttempts(a Attempts) Option {
	return func(o *options) { o.derive.Attempts, o.derives = a, "WithAttempts" }
}

// WithDeriveOptions sets all derivation options at once.
func WithDeriveOptions(d DeriveOptions) Option {
	return func(o *options) { o.derive, o.derives = d, "WithDeriveOptions" }
}

// WithDeriver replaces script derivation. The regression suite uses it to
// build a driver with a broken deriver and show what the real one prevents.
// Load then reads whole logs into memory to hand them to it.
func WithDeriver(d Deriver) Option {
	return func(o *options) { o.deriver, o.derives = d, "WithDeriver" }
}

// WithOverride applies authored changes to the derived scripts. With Load,
// it is used instead of the sidecar in the folder.
func WithOverride(ov *Override) Option {
	return func(o *options) { o.override, o.derives = ov, "WithOverride" }
}

// WithRead has PrepareFiles call read with each log it reads, the i-th of
// its paths, before the log's script is derived and the log let go: what
// a caller keeps of the recording without reading its files again. A log
// with a torn last line (which DeriveOptions.DropIncomplete derives) is
// not passed: read never sees less than the file holds. read is called on
// every processor, in no particular order, and must keep nothing of l but
// copies. Prepare, whose logs the caller holds, ignores it.
func WithRead(read func(i int, l *session.Log)) Option {
	return func(o *options) { o.read, o.derives = read, "WithRead" }
}

// WithPace waits d between the chunks of a replayed call, so a runtime sees
// a stream that takes time. The wait ends at once when the call's context
// is cancelled, and the call then ends with an aborted finish.
func WithPace(d time.Duration) Option { return func(o *options) { o.pace = d } }

// WithSchedule replays under the seeded schedule of seed (see [Seeded]):
// every call waits and yields as the seed plans before its chunks, so the
// calls of concurrent sessions answer and finish in an order the seed
// picks. Only timing changes: every call is served the same chunks. A
// harness searches schedules with one driver per seed.
func WithSchedule(seed int64) Option { return WithScheduleOf(Seeded(seed)) }

// WithScheduleOf replays under s, a schedule of one's own (nil: none).
func WithScheduleOf(s Schedule) Option {
	return func(o *options) {
		o.schedule = nil
		if s != nil {
			o.schedule = &schedule{plan: s, flying: map[*timing]bool{}}
		}
	}
}

// WithRecordCommand sets the command that errors name as the way to
// re-record the scenario. The default, also for "", is "go tool agentsnap
// record DIR" with the folder of the logs.
func WithRecordCommand(cmd string) Option {
	return func(o *options) { o.record = func() string { return cmd } }
}

// WithRecordCommandFunc is WithRecordCommand with the command made by cmd
// when an error first names it, once: for a command that costs a read of
// the fixture (agentsnap serve's names every MCP server its logs called),
// which a replay that fails nowhere never pays.
// A nil cmd, as an empty command, leaves the default.
func WithRecordCommandFunc(cmd func() string) Option {
	return func(o *options) {
		if o.record = nil; cmd != nil {
			o.record = sync.OnceValue(cmd)
		}
	}
}

// WithAdvice sets what errors end with instead of "re-record with: " and
// the record command, and what Prepare's refusals of a log end with
// instead of advice to re-record the scenario or run the CLI: for a
// recording made afresh before every replay (package conformance), which
// re-recording does not mend, text says what to look at in the agent.
func WithAdvice(text string) Option { return func(o *options) { o.advice = text } }

// WithReleaseServed has the driver let go of each recorded answer once it
// has handed it to a call, so a replay holds only the answers still to
// come — for a large recording replayed once (agentsnap serve). It spends
// the recording the driver came from: its scripts lose the chunks of
// every answer served, so build no other driver from it.
func WithReleaseServed() Option { return func(o *options) { o.release = true } }

// WithLogf receives the driver's notes, such as a child routed by
// first-call order because its log has no parentCallId. GinkgoWriter.Printf
// and testing.T.Logf fit.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.logf = logf }
}

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// fix returns what a refusal of a log ends with: WithAdvice's text, else
// def, what mends a fixture on disk.
func (o *options) fix(def string) string {
	d := DeriveOptions{advice: o.advice}
	return d.fix(def)
}

// derive returns the script of l with the configured deriver.
func (o *options) deriveLog(l *session.Log) (*Script, error) {
	if o.deriver != nil {
		return o.deriver(l)
	}
	d := o.derive
	d.advice = o.advice
	return DeriveLog(l, d)
}
