package main

import (
	"fmt"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("check's fix for a replay that re-recording does not mend", func() {
	// The reference runtime writes its logs in call order, so a
	// schedule-dependent outcome is made by hand: the search's error among
	// the replay's, as judge puts it there.
	It("is empty: the report says re-recording does not help, and json's fix must not say otherwise", func() {
		root := fixtureCopy("parallel/fan-out")
		fx, err := fixture.Load(filepath.Join(root, "fixtures/parallel/fan-out"))
		Expect(err).NotTo(HaveOccurred())
		o := &judge.Outcome{Fixture: fx, RunErrors: []error{fmt.Errorf("judge: %w: parallel/fan-out: of 50 schedules ...", judge.ErrScheduleDependent)}}
		Expect(o.Passed()).To(BeFalse())
		Expect(fixCommand(o)).To(BeEmpty())
	})

	It("is empty for a replay that failed with an error re-recording does not mend: the error says what to do", func() {
		root := fixtureCopy("parallel/fan-out")
		fx, err := fixture.Load(filepath.Join(root, "fixtures/parallel/fan-out"))
		Expect(err).NotTo(HaveOccurred())
		o := &judge.Outcome{Fixture: fx, RunErrors: []error{fmt.Errorf("agent: %w", notMendedError{})}}
		Expect(fixCommand(o)).To(BeEmpty())
	})

	It("is still the re-recording for a replay that fails otherwise", func() {
		root := fixtureCopy("parallel/fan-out")
		fx, err := fixture.Load(filepath.Join(root, "fixtures/parallel/fan-out"))
		Expect(err).NotTo(HaveOccurred())
		o := &judge.Outcome{Fixture: fx, RunErrors: []error{fmt.Errorf("agent: something broke")}}
		Expect(fixCommand(o)).To(HavePrefix("go tool agentsnap record "))
	})
})

// notMendedError is a run error re-recording does not mend
// (agentsnap.NotMended), as the wire layer's refusals are.
type notMendedError struct{}

func (notMendedError) Error() string {
	return "wire: POST /v1/embeddings is not a model call agentsnap serves"
}
func (notMendedError) NotMendedByRecording() {}
