import { Duration } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { evidenceBucket } from '#shared/resources.ts';

export interface EvidenceBucketProps {
  /** Keep overwritten or deleted evidence as noncurrent versions. @default true */
  readonly versioned?: boolean;
}

/**
 * MED evidence files: uploaded by the merchant's browser with presigned PUTs (hence CORS) under
 * `uploads/`, which expires (raw uploads are read only by `complete`, which copies a confirmed
 * file under `accounts/`, kept), read only through the API. Private, S3-encrypted, TLS only,
 * with server access logs in a separate bucket, expired after `accessLogExpirationDays`.
 */
export class EvidenceBucket extends Construct {
  readonly bucket: Bucket;
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: EvidenceBucketProps = {}) {
    super(scope, id);

    // Grant log delivery with a bucket policy rather than the legacy LogDeliveryWrite ACL (ACLs
    // are disabled on new buckets). Scoped to this construct; must precede its children.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    // Needs no access logs of its own: cdk-nag (S1) accepts a bucket that is a log destination.
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // Server access logs can only be delivered to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'ExpireAccessLogs', expiration: Duration.days(evidenceBucket.accessLogExpirationDays) },
      ],
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: props.versioned ?? true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'evidence/',
      cors: [
        {
          allowedMethods: evidenceBucket.cors.allowedMethods.map((method) => HttpMethods[method]),
          allowedOrigins: [...evidenceBucket.cors.allowedOrigins],
          allowedHeaders: [...evidenceBucket.cors.allowedHeaders],
          maxAge: evidenceBucket.cors.maxAgeSeconds,
        },
      ],
      lifecycleRules: [
        {
          abortIncompleteMultipartUploadAfter: Duration.days(evidenceBucket.abortIncompleteUploadDays),
          transitions: [
            {
              storageClass: StorageClass.INFREQUENT_ACCESS,
              transitionAfter: Duration.days(evidenceBucket.infrequentAccessAfterDays),
            },
          ],
        },
        // Raw uploads: `complete` reads one only within its grant's 900 s, then copies a confirmed
        // file under `accounts/` (no rule expires those). Versioned bucket: the expiry leaves a
        // delete marker and a noncurrent version, which goes a day later.
        {
          id: 'ExpireUploads',
          prefix: evidenceBucket.uploadKeyPrefix,
          expiration: Duration.days(evidenceBucket.uploadExpirationDays),
          noncurrentVersionExpiration: Duration.days(evidenceBucket.uploadNoncurrentExpirationDays),
        },
        // A delete marker with no version left behind it (S3 takes this in a rule of its own:
        // not beside an expiration in days).
        {
          id: 'RemoveUploadDeleteMarkers',
          prefix: evidenceBucket.uploadKeyPrefix,
          expiredObjectDeleteMarker: true,
        },
      ],
    });
  }
}
