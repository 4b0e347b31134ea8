// The intent and the types it shares with the token registry (Pipeline) live one module down, in
// IntentCore, so Pipeline need not depend on Enrichment; Enrichment's users keep naming them here.
@_exported import IntentCore
