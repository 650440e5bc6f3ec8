package open_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOpen(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "persistence/open")
}
