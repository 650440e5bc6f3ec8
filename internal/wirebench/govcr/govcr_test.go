package govcr_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/internal/wirebench/govcr"
)

// fatalTB is a wirebench.TB whose Fatal stops the replay and keeps why.
type fatalTB struct {
	FullGinkgoTInterface
	failed string
}

type stopped struct{}

func (t *fatalTB) Fatal(args ...any) { t.failed = fmt.Sprint(args...); panic(stopped{}) }

func (t *fatalTB) Fatalf(format string, args ...any) { t.Fatal(fmt.Sprintf(format, args...)) }

// replay runs one round of side on t, and says why it stopped, if it did.
func replay(t *fatalTB, side wirebench.Side) (failed string) {
	defer func() {
		if r := recover(); r != nil {
			Expect(r).To(Equal(stopped{}))
			failed = t.failed
		}
	}()
	side.Prepare(t)
	side.Run(t)(t)
	return ""
}

var _ = Describe("the go-vcr side", func() {
	It("replays every call of the recording from its cassette, round after round", func() {
		rec := wirebench.Record(GinkgoT(), 2)
		side := govcr.Side(GinkgoT(), rec)
		Expect(side.Name).To(Equal("go-vcr"))
		t := &fatalTB{FullGinkgoTInterface: GinkgoT()}
		for range 2 {
			Expect(replay(t, side)).To(BeEmpty())
		}
	})

	It("serves nothing it did not record: a request the cassette lacks fails the round", func() {
		rec := wirebench.Record(GinkgoT(), 2)
		side := govcr.Side(GinkgoT(), rec)
		rec.Prompts[1] = "Question 2, asked otherwise: who owns the release?"
		t := &fatalTB{FullGinkgoTInterface: GinkgoT()}
		Expect(replay(t, side)).To(ContainSubstring("requested interaction not found"))
	})
})
