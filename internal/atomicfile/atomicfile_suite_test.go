package atomicfile_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAtomicFile(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "atomicfile")
}
