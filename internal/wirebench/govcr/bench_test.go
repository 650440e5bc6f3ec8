package govcr_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/internal/wirebench/govcr"
)

// BenchmarkAgentReplay is wire's BenchmarkAgentReplay with go-vcr v4
// beside wire, httprr and the floor: it reports wire/go-vcr-time and
// wire/go-vcr-allocs too.
//
//	go test -run '^$' -bench AgentReplay -benchtime 20x .
func BenchmarkAgentReplay(b *testing.B) { wirebench.Bench(b, govcr.Side) }
