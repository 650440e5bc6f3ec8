package wait_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/internal/wait"
)

func TestSleepReturnsAtOnceWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := wait.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Minute {
		t.Fatal("Sleep waited although the context was cancelled")
	}
}

func TestSleepWaitsTheDuration(t *testing.T) {
	start := time.Now()
	if err := wait.Sleep(context.Background(), 5*time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v, want nil", err)
	}
	if time.Since(start) < 5*time.Millisecond {
		t.Fatal("Sleep returned before the duration")
	}
}

func TestSleepOfZeroReportsTheContext(t *testing.T) {
	if err := wait.Sleep(context.Background(), 0); err != nil {
		t.Fatalf("Sleep(0) = %v, want nil", err)
	}
}
