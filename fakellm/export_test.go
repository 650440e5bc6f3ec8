package fakellm

// ObjectMembers is objectMembers, for the tests.
var ObjectMembers = objectMembers
