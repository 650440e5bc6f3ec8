package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/agentsnap/agentsnap/scenario"
)

// Bounds of the numbers the CLI's flags take: each far beyond any useful
// value, so a typo cannot start a million goroutines, stall a recording
// for hours or ask for a search that never ends.
const (
	maxJobs        = 1024        // --jobs
	maxPace        = time.Minute // record --pace, per chunk
	maxGrowthShare = 100.0       // --max-growth, as a share (10000%)
)

// defaultJobs is --jobs when none is given: one scenario per CPU.
func defaultJobs() int { return min(runtime.GOMAXPROCS(0), maxJobs) }

// checkJobs bounds --jobs.
func checkJobs(n int) error {
	if n < 1 || n > maxJobs {
		return fmt.Errorf("--jobs %d: want 1 to %d scenarios replayed at once (the default is one per CPU)", n, maxJobs)
	}
	return nil
}

// bounds checks check's numeric flags.
func (f *checkFlags) bounds() error {
	if err := checkJobs(f.jobs); err != nil {
		return err
	}
	if f.schedules < 0 || f.schedules > scenario.SchedulesLimit {
		return fmt.Errorf("--schedules %d: want 0 to %d schedules, such as 50 (0: replay once)", f.schedules, scenario.SchedulesLimit)
	}
	return nil
}

// checkPace bounds record's --pace.
func checkPace(d time.Duration) error {
	if d < 0 || d > maxPace {
		return fmt.Errorf("--pace %s: want a pause from 0 to %s between chunks, such as 20ms", d, maxPace)
	}
	return nil
}
