package readfile_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestReadFile(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "readfile")
}
