package harness

import (
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap/internal/envvar"
)

// The flags of a test binary that uses the harness. They exist only in test
// binaries (testing.Testing()): a program that links the harness registers
// nothing. Each has a variable for runs where a flag cannot be passed.
//
//	-record=REGEXP       AGENTSNAP_RECORD       re-record the matching scenarios, then replay them
//	-record-only-changed AGENTSNAP_RECORD_ONLY_CHANGED=1  with -record: re-record only what changed
//	-record-session=PATH AGENTSNAP_RECORD_SESSION  with -record: re-record that session's subtree, keep the rest
//	-schedule-seed=SEED  AGENTSNAP_SCHEDULE_SEED replay under the one schedule a failed search named
//	-update              AGENTSNAP_UPDATE       rewrite goldens from replays that match (goldie's flag)
var (
	recordFlag        *string
	onlyChangedFlag   *bool
	recordSessionFlag *string
	scheduleSeedFlag  *int64
)

func init() {
	if !testing.Testing() {
		return
	}
	// A flag of the same name registered before this package's init (by a
	// package the harness does not import) is kept, and the variable
	// still works. A test package that imports the harness initialises
	// after it, so a flag of its own of one of these names panics with
	// "flag redefined": README's Troubleshooting says how to share ours.
	if flag.Lookup("record") == nil {
		recordFlag = flag.String("record", "", "agentsnap: re-record the scenarios whose CATEGORY/NAME matches this regexp before replaying them (from playbook.json, or live with AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key set); also AGENTSNAP_RECORD")
	}
	if flag.Lookup("record-only-changed") == nil {
		onlyChangedFlag = flag.Bool("record-only-changed", false, "agentsnap: with -record, replay every recorded call whose request still matches and ask the model only from each session's first call that changed; also AGENTSNAP_RECORD_ONLY_CHANGED=1")
	}
	if flag.Lookup("record-session") == nil {
		recordSessionFlag = flag.String("record-session", "", "agentsnap: with -record, re-record the session at this lineage path (such as root/call_1) and its subtree and keep the rest (implies -record-only-changed); also AGENTSNAP_RECORD_SESSION")
	}
	if flag.Lookup("schedule-seed") == nil {
		scheduleSeedFlag = flag.Int64("schedule-seed", 0, "agentsnap: replay every scenario under the one schedule of this seed, as a failed schedule search prints it; also AGENTSNAP_SCHEDULE_SEED")
	}
}

// scheduleSeed is -schedule-seed (AGENTSNAP_SCHEDULE_SEED is read where a
// replay resolves its schedules); 0 when unset.
func scheduleSeed() int64 {
	if scheduleSeedFlag != nil {
		return *scheduleSeedFlag
	}
	return 0
}

// Update policy. Goldie's -update flag (and its GOLDIE_UPDATE variable) and
// AGENTSNAP_UPDATE ask for goldens to be rewritten from the replay. Under
// either the harness alone writes — only goldens, only when the replay
// itself matched the recording, atomically, and never under CI unless
// forced — and never hands the transcript to goldie, which would write it
// whatever the replay did. The flag itself is left as it was given: other
// golden tests of the binary (goldie's, or a package's own reading it)
// update under the same -update.
var (
	readUpdate sync.Once
	updateFlag bool // -update, as this process was started with
)

// UpdateRequested reports whether this run was asked to rewrite goldens:
// -update as the test binary was started, or AGENTSNAP_UPDATE as it is
// set now.
func UpdateRequested() bool {
	readUpdate.Do(func() {
		if f := flag.Lookup("update"); f != nil {
			updateFlag = f.Value.String() == "true"
		}
	})
	return updateFlag || envvar.On("AGENTSNAP_UPDATE")
}

// recordOnlyChanged is -record-only-changed (or
// AGENTSNAP_RECORD_ONLY_CHANGED) and -record-session (or
// AGENTSNAP_RECORD_SESSION): whether to re-record only what changed, and
// the lineage path of a session to re-record on purpose ("" for none).
func recordOnlyChanged() (bool, string) {
	path := os.Getenv("AGENTSNAP_RECORD_SESSION")
	if recordSessionFlag != nil && *recordSessionFlag != "" {
		path = *recordSessionFlag
	}
	only := envvar.On("AGENTSNAP_RECORD_ONLY_CHANGED") || onlyChangedFlag != nil && *onlyChangedFlag
	return only || path != "", path
}

// recordExpr is the -record (or AGENTSNAP_RECORD) pattern, "" when unset.
func recordExpr() string {
	if recordFlag != nil && *recordFlag != "" {
		return *recordFlag
	}
	return os.Getenv("AGENTSNAP_RECORD")
}
