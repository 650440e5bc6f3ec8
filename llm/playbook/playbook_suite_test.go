package playbook_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPlaybook(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "llm/playbook")
}
