package playbook_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/playbook"
)

var _ = Describe("a playbook.json that starts with a byte order mark", func() {
	It("says so, not \"invalid character 'ï'\"", func() {
		_, err := playbook.Parse([]byte("\uFEFF{\"sessions\": {\"root\": [{\"text\": \"hi\"}]}}"), "pb.json")
		Expect(err).To(MatchError("playbook: pb.json: invalid playbook: line 1: the file starts with a UTF-8 byte order mark, which an editor added; remove it"))
	})
})
