//go:build !unix

package readfile

func appendFile(buf []byte, path string) ([]byte, error) {
	return appendSlow(buf, path)
}
