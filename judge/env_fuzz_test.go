package judge

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/scenario"
)

// FuzzScheduleEnv feeds arbitrary text to the environment variables a
// schedule search reads, AGENTSNAP_SCHEDULES and AGENTSNAP_SCHEDULE_SEED.
// Nothing may panic; an error names the variable and quotes its value
// (trimmed); a number of schedules accepted is within
// 0..scenario.SchedulesLimit, and a seed accepted is the one the text
// spells. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzScheduleEnv$' -fuzztime 60s ./judge
func FuzzScheduleEnv(f *testing.F) {
	for _, s := range []string{
		"50", "0", " 18 ", "-1", "10000", "10001", "2147483648", "9223372036854775807", "-9223372036854775808",
		"99999999999999999999", "1e3", "0x10", "+5", "", " ", "five",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsRune(v, 0) {
			return // no environment holds a NUL
		}
		t.Setenv(SchedulesVar, v)
		t.Setenv(ScheduleSeedVar, v)
		n, ok, err := envSchedules()
		switch {
		case err != nil:
			named(t, err, SchedulesVar, v)
		case ok && (n < 0 || n > scenario.SchedulesLimit):
			t.Fatalf("%s=%q gives %d schedules, outside 0..%d", SchedulesVar, v, n, scenario.SchedulesLimit)
		case !ok && strings.TrimSpace(v) != "":
			t.Fatalf("%s=%q is taken as unset", SchedulesVar, v)
		}
		seed, err := namedSeed()
		if err != nil {
			named(t, err, ScheduleSeedVar, v)
			return
		}
		if want, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64); strings.TrimSpace(v) != "" && (perr != nil || want != seed) {
			t.Fatalf("%s=%q gives seed %d", ScheduleSeedVar, v, seed)
		}
	})
}

// named fails t when err does not name the variable and quote its value
// (trimmed, as it is read).
func named(t *testing.T, err error, name, v string) {
	t.Helper()
	if !strings.Contains(err.Error(), fmt.Sprintf("%s=%q", name, strings.TrimSpace(v))) {
		t.Fatalf("the error for %s=%q does not name it: %v", name, v, err)
	}
}
