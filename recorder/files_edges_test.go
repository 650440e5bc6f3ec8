package recorder_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("recorded files, listed", func() {
	// Result.Files came from ranging over a map: a caller printing it (an
	// Example, a CI log) saw another order on every run.
	It("lists the files sorted, on every recording", func() {
		dir := scaffold("fork/listed")
		for range 8 {
			res, err := record(context.Background(), dir, playbookDriver(dir))
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Files).To(Equal([]string{"scenario.json", "session.1.jsonl", "session.jsonl", "transcript.golden"}))
		}
	})
})
