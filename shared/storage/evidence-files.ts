/**
 * The evidence bucket (S3): presigned uploads whose signature binds `Content-Type` and
 * `Content-Length`, the stored size of an object, presigned downloads. An outbound adapter: it
 * knows keys only as strings handed in (built in store/keys.ts) and reads no table. Any failure
 * to reach the storage is `StorageUnavailable` (503).
 */

import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config.ts';
import { StorageUnavailable } from '../domain/errors.ts';

// Path-style URLs (the local emulator has no per-bucket host names) and no flexible checksums
// (a presigned PUT must not require a checksum header the browser does not send).
const s3 = new S3Client({
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

const unavailable = (error: unknown): never => {
  throw Object.assign(new StorageUnavailable(), { cause: error });
};

/**
 * Throws `StorageUnavailable` unless the bucket answers now. Signing a URL never contacts S3, so
 * without this an outage would still grant a dead upload URL (Part 2, "Upload grant": 503
 * "evidence upload suspended"). Asked as a `HeadObject` of the key about to be granted (absent:
 * an answer), not `HeadBucket`: it needs no grant beyond the role's `GetObject` (`HeadBucket`
 * needs `s3:ListBucket`), and the local S3 emulator refuses the SDK's `HeadBucket` signature
 * (it signs `/<bucket>/`, s3rver checks `/<bucket>`).
 */
export async function assertStorageAnswers(key: string): Promise<void> {
  await storedObjectSize(key);
}

/** A PUT URL valid `ttlSeconds` that only accepts exactly this content type and length. */
export async function presignUpload(
  key: string,
  contentType: string,
  contentLength: number,
  ttlSeconds: number,
): Promise<string> {
  try {
    return await getSignedUrl(
      s3,
      new PutObjectCommand({
        Bucket: config.evidenceBucket,
        Key: key,
        ContentType: contentType,
        ContentLength: contentLength,
      }),
      { expiresIn: ttlSeconds, signableHeaders: new Set(['content-type', 'content-length']) },
    );
  } catch (error) {
    return unavailable(error);
  }
}

/**
 * A GET URL valid `ttlSeconds`, served as a download (`Content-Disposition: attachment`): the
 * bytes are the merchant's, never checked against the declared type, so a browser must not
 * render them inline on the bucket's origin.
 */
export async function presignDownload(key: string, ttlSeconds: number): Promise<string> {
  try {
    return await getSignedUrl(
      s3,
      new GetObjectCommand({
        Bucket: config.evidenceBucket,
        Key: key,
        ResponseContentDisposition: 'attachment',
      }),
      { expiresIn: ttlSeconds },
    );
  } catch (error) {
    return unavailable(error);
  }
}

// Without `s3:ListBucket` (the stack grants none) S3 answers an absent key with 403.
const isAbsent = (error: unknown): boolean => {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as { name?: string }).name;
  return status === 404 || status === 403 || name === 'NotFound' || name === 'NoSuchKey';
};

/** The stored object's size in bytes and ETag, or undefined when there is no such object. */
async function headObject(key: string): Promise<{ size: number; etag: string } | undefined> {
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: config.evidenceBucket, Key: key }));
    return { size: head.ContentLength ?? 0, etag: head.ETag ?? '' };
  } catch (error) {
    if (isAbsent(error)) return undefined;
    return unavailable(error);
  }
}

/** The stored object's size in bytes, or undefined when there is no such object. */
export async function storedObjectSize(key: string): Promise<number | undefined> {
  return (await headObject(key))?.size;
}

/**
 * Copies `source` to `target` inside the bucket (server-side `CopyObject`: `GetObject` on the
 * source, `PutObject` on the target) and answers what the target now holds; undefined when
 * the source is absent.
 */
export async function copyObject(
  source: string,
  target: string,
): Promise<{ size: number; etag: string } | undefined> {
  try {
    await s3.send(
      new CopyObjectCommand({
        Bucket: config.evidenceBucket,
        Key: target,
        CopySource: `${config.evidenceBucket}/${source.split('/').map(encodeURIComponent).join('/')}`,
      }),
    );
  } catch (error) {
    if (isAbsent(error)) return undefined;
    return unavailable(error);
  }
  return headObject(target);
}
