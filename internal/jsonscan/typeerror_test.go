package jsonscan_test

import (
	"encoding/json"
	"errors"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("TypeError", func() {
	type item struct {
		Name  string   `json:"name"`
		Stops []string `json:"stops"`
		Max   int      `json:"max"`
	}
	type request struct {
		Items []item `json:"items"`
	}
	shape := func(doc, at string) error {
		GinkgoHelper()
		var r request
		err := json.Unmarshal([]byte(doc), &r)
		Expect(err).To(HaveOccurred())
		return jsonscan.TypeError([]byte(doc), at, err)
	}

	It("names the first value of the wrong kind by its path, indexes included, after at", func() {
		Expect(shape(`{"items":[{"name":"a"},{"name":"b","stops":["x",7]}]}`, "")).To(MatchError("items[1].stops[1] is the number 7: send a string"))
		Expect(shape(`{"items":[{"max":1.5}]}`, "body")).To(MatchError("body.items[0].max is the number 1.5: send an integer"))
		Expect(shape(`{"items":{}}`, "")).To(MatchError("items is an object: send an array of item objects"))
		Expect(shape(`{"items":[true]}`, "")).To(MatchError("items[0] is true: send an item object"))
	})

	It("matches a member's name in any case, as encoding/json does, and names it as sent", func() {
		Expect(shape(`{"ITEMS":[{"Name":3}]}`, "")).To(MatchError("ITEMS[0].Name is the number 3: send a string"))
	})

	It("leaves any other error to the caller", func() {
		var r request
		err := json.Unmarshal([]byte(`{"items":`), &r)
		Expect(jsonscan.TypeError([]byte(`{"items":`), "", err)).To(BeNil())
		Expect(jsonscan.TypeError(nil, "", errors.New("other"))).To(BeNil())
	})

	It("names the path as encoding/json has it when the value is not found again", func() {
		err := &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeFor[string](), Field: "items.name"}
		Expect(jsonscan.TypeError([]byte(`{}`), "", err)).To(MatchError("items.name is a number: send a string"))
	})
})
