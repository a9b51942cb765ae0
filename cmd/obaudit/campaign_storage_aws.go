//go:build obaudit_aws

package main

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/s3log"
	"github.com/obaudit/obaudit/refusal"
)

// openS3Store opens an s3:// campaign log store: tessera's AWS driver,
// sequencing through the MySQL database OBAUDIT_LOG_MYSQL_DSN names, with
// the AWS SDK's default credential chain; OBAUDIT_S3_ENDPOINT points it at
// an S3-compatible service instead of AWS (path-style addressing).
func openS3Store(ctx context.Context, storage, bucket, prefix string) (campaign.LogStore, error) {
	dsn := os.Getenv("OBAUDIT_LOG_MYSQL_DSN")
	if dsn == "" {
		return nil, refusal.New(campaign.ErrLogStorage, "%s: set OBAUDIT_LOG_MYSQL_DSN to the MySQL database tessera sequences this log through (user:password@tcp(host:3306)/db)", storage)
	}
	sdk, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, refusal.Wrap(campaign.ErrLogStorage, err, "%s: the AWS configuration", storage)
	}
	var opts func(*s3.Options)
	if ep := os.Getenv("OBAUDIT_S3_ENDPOINT"); ep != "" {
		if sdk.Region == "" {
			sdk.Region = "us-east-1"
		}
		opts = func(o *s3.Options) {
			o.BaseEndpoint = aws.String(ep)
			o.UsePathStyle = true
		}
	}
	return s3log.New(s3log.Config{URL: storage, Bucket: bucket, Prefix: prefix, DSN: dsn, SDK: sdk, S3Options: opts}), nil
}
