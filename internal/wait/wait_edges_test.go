package wait_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/internal/wait"
)

func TestSleepOfZeroOrLessOnACancelledContextReportsTheCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{0, -time.Second} {
		if err := wait.Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(cancelled, %v) = %v, want context.Canceled: a retry loop must stop", d, err)
		}
	}
}
