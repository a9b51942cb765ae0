//go:build !obaudit_aws

package main

import (
	"context"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/refusal"
)

func openS3Store(ctx context.Context, storage, bucket, prefix string) (campaign.LogStore, error) {
	return nil, refusal.New(campaign.ErrLogStorage, "%s: this obaudit was built without the S3 log driver; build one with `go build -tags obaudit_aws ./cmd/obaudit`", storage)
}
