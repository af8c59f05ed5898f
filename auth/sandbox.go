package auth

import "github.com/disburse/disburse"

// testKeyPrefix starts a sandbox organisation's API keys (docs/sandbox.md),
// so that neither its owner nor a secret scanner takes one for a live key.
const testKeyPrefix = "dak_test_"

// keyPrefix is the prefix of org's API keys.
func keyPrefix(org disburse.Organisation) string {
	if org.Sandbox {
		return testKeyPrefix
	}
	return apiKeyPrefix
}
