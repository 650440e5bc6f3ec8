package storetest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Storage is one fresh place to keep sessions — a temporary folder, a
// temporary database, a memory backend — made for one check.
type Storage interface {
	// Open opens a store on the storage. The checks close every store they
	// open, and open the storage again to check what survived. One check
	// opens a second store while the first is open, as another process
	// would; an error then skips that check.
	Open() (persistence.Store, error)

	// Crash leaves the storage as a process that died while it appended
	// events to the stored session id would leave it: JSONL with some of
	// the lines written and the next one cut short, SQLite with the batch's
	// transaction never committed. No store is open when it is called.
	Crash(id string, events []session.Event) error
}

// ErrSkipped is wrapped by the error of a check that does not apply to the
// store: the delete checks of a store that is no persistence.Deleter. Run
// does not count it as a failure; a Ginkgo adapter may Skip on it.
var ErrSkipped = errors.New("check does not apply to this store")

// Check is one rule of the contract. Name is the rule in words, its topic
// first ("round trip: keeps a spawn child without a seedLength").
//
// Run checks the rule on fresh storage from newStorage (a check that needs
// a second storage calls it again) and returns nil or an error, prefixed
// "storetest: " and the name, saying what the store was asked, what it did
// and what was wanted. Run closes every store it opens before it returns,
// also when it fails, and reports a panic of the store as its error rather
// than passing it on. It may call the store from several goroutines.
type Check struct {
	Name string
	Run  func(ctx context.Context, newStorage func() (Storage, error)) error
}

// Checks returns the contract, one Check per rule, in a fixed order.
func Checks() []Check {
	var out []Check
	for _, group := range [][]check{
		roundTripChecks(), resumeChecks(), orderingChecks(), createChecks(),
		lifecycleChecks(), listOrderChecks(), concurrencyChecks(), racingChecks(),
		crashChecks(), deleteChecks(), faultChecks(),
	} {
		for _, c := range group {
			out = append(out, Check{Name: c.name, Run: c.run})
		}
	}
	return out
}

// Run runs every check of Checks, one after the other, each on fresh
// storage from newStorage, and returns nil if the store passes them all.
// Otherwise it returns one error listing every check the store failed,
// not only the first; a check that panics is one of them, and the checks
// after it still run. Checks that do not apply (ErrSkipped) are not
// failures.
func Run(ctx context.Context, newStorage func() (Storage, error)) error {
	checks := Checks()
	failed := &runError{checks: len(checks)}
	for _, c := range checks {
		switch err := c.Run(ctx, newStorage); {
		case err == nil:
		case errors.Is(err, ErrSkipped):
			failed.skipped++
		default:
			failed.failed = append(failed.failed, err)
		}
	}
	if len(failed.failed) == 0 {
		return nil
	}
	return failed
}

// runError lists the failed checks of a Run.
type runError struct {
	checks, skipped int
	failed          []error
}

func (e *runError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "storetest: the store failed %d of %d checks", len(e.failed), e.checks)
	if e.skipped > 0 {
		fmt.Fprintf(&b, " (%d did not apply)", e.skipped)
	}
	b.WriteString("; each names the rule it broke, what the store did and what was wanted — fix the store until Run returns nil:")
	for _, err := range e.failed {
		b.WriteString("\n")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n\t"))
	}
	return b.String()
}

// Unwrap returns the error of each failed check.
func (e *runError) Unwrap() []error { return e.failed }

// check is one rule: body runs on an env whose store is open.
type check struct {
	name string
	body func(e *env) error
}

// run runs the check on fresh storage, closes every store it opened and
// names the check in its error.
func (c check) run(ctx context.Context, newStorage func() (Storage, error)) error {
	e := &env{ctx: ctx, newStorage: newStorage}
	err := protect(func() error {
		if err := e.start(); err != nil {
			return err
		}
		return c.body(e)
	})
	var errs []error
	for i, st := range e.opened {
		if err := protect(st.Close); err != nil {
			errs = append(errs, fmt.Errorf("closing store %d of %d at the end of the check: Close() = %w, wanted nil", i+1, len(e.opened), err))
		}
	}
	if len(errs) == 0 || !errors.Is(err, ErrSkipped) { // a failed Close is no skip
		errs = append([]error{err}, errs...)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("storetest: %s: %w", c.name, err)
	}
	return nil
}

// protect calls fn and turns a panic into an error carrying the panic
// value and the stack it came from, so one panicking store fails one
// check and the others still run.
func protect(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v (a store returns errors; it must not panic)\n%s", r, debug.Stack())
		}
	}()
	return fn()
}
