package recorder_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
)

var _ = Describe("a live failure whose code LiveFailure does not count as infrastructure", func() {
	It("is agent behaviour: the recording keeps it instead of failing", func() {
		dir, _ := recorded("fork/codeword")
		var n int
		e := statusServer(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: KEY"}}`, &n)
		_, err := recordLive(dir, e, func(o *recorder.Options) {
			o.LiveFailure = func(string) bool { return false }
			o.ReplaceGolden = true
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree(dir)["codeword/"+fixture.GoldenFile]).To(ContainSubstring("HTTP 401 Unauthorized"))
	})
})
