// Package nexttest holds what the specs of every API's request reader
// read against the last request (openai, anthropic, gemini and responses'
// DecodeNext) share: a conversation's growing bodies, random pairs of
// them, and reads at the same time. It links no test framework.
package nexttest

import (
	"math/rand/v2"
	"sync"
)

// Conversation returns the bodies of a conversation that grows by an
// element a step, for steps steps, now and then rewriting an earlier one:
// elem makes the element of a step, body the request of the elements.
func Conversation(r *rand.Rand, steps int, elem func(step int) string, body func(elems []string) []byte) [][]byte {
	var bodies [][]byte
	var elems []string
	for step := range steps {
		elems = append(elems, elem(step))
		if r.IntN(4) == 0 {
			elems[r.IntN(len(elems))] = elem(step) // a rewrite
		}
		bodies = append(bodies, body(elems))
	}
	return bodies
}

// Pairs calls f with n pairs of bodies drawn at random: a request read
// against any earlier one, or a later one, or itself.
func Pairs(r *rand.Rand, bodies [][]byte, n int, f func(a, b []byte)) {
	for range n {
		f(bodies[r.IntN(len(bodies))], bodies[r.IntN(len(bodies))])
	}
}

// AtOnce reads every body with read, each on a goroutine of its own, at
// the same time, and returns what each read and its error, in order.
func AtOnce[T any](bodies [][]byte, read func(body []byte) (T, error)) ([]T, []error) {
	got, errs := make([]T, len(bodies)), make([]error, len(bodies))
	var wg sync.WaitGroup
	for i, b := range bodies {
		wg.Go(func() { got[i], errs[i] = read(b) })
	}
	wg.Wait()
	return got, errs
}
