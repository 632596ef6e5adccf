// The XML documents the S3 test server answers with: the REST error document and
// ListObjectsV2's ListBucketResult, element names as the S3 API reference gives them.
//
// Error document: https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
// ("REST error responses": Code, Message, Resource, RequestId, plus per-error elements such
// as Key and BucketName). ListObjectsV2:
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html

/** An S3 error as the server will send it. */
export interface S3Failure {
  status: number;
  code: string;
  message: string;
  key?: string;
  bucket?: string;
}

const NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function element(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${xmlEscape(String(value))}</${name}>`;
}

export function errorDocument(failure: S3Failure, resource: string, requestId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    element('Code', failure.code) +
    element('Message', failure.message) +
    element('BucketName', failure.bucket) +
    element('Key', failure.key) +
    element('Resource', resource) +
    element('RequestId', requestId) +
    element('HostId', `s3-test-server/${requestId}`) +
    '</Error>'
  );
}

export interface ListedObject {
  key: string;
  lastModified: Date;
  etag: string;
  size: number;
}

export interface ListResultFields {
  bucket: string;
  prefix: string;
  delimiter?: string;
  maxKeys: number;
  startAfter?: string;
  continuationToken?: string;
  nextContinuationToken?: string;
  isTruncated: boolean;
  contents: ListedObject[];
  commonPrefixes: string[];
  /** `url`: keys and prefixes are percent-encoded, as S3 does when `encoding-type=url`. */
  encodingType?: 'url';
}

export function listDocument(fields: ListResultFields): string {
  const text = fields.encodingType === 'url' ? encodeURIComponent : (s: string) => s;
  const optional = (name: string, value: string | undefined) =>
    value === undefined ? '' : element(name, text(value));
  const contents = fields.contents
    .map(
      (item) =>
        '<Contents>' +
        element('Key', text(item.key)) +
        element('LastModified', item.lastModified.toISOString()) +
        element('ETag', item.etag) +
        element('Size', item.size) +
        element('StorageClass', 'STANDARD') +
        '</Contents>',
    )
    .join('');
  const prefixes = fields.commonPrefixes
    .map((prefix) => `<CommonPrefixes>${element('Prefix', text(prefix))}</CommonPrefixes>`)
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${NAMESPACE}">` +
    element('Name', fields.bucket) +
    element('Prefix', text(fields.prefix)) +
    optional('Delimiter', fields.delimiter) +
    optional('StartAfter', fields.startAfter) +
    element('ContinuationToken', fields.continuationToken) +
    element('NextContinuationToken', fields.nextContinuationToken) +
    element('KeyCount', fields.contents.length + fields.commonPrefixes.length) +
    element('MaxKeys', fields.maxKeys) +
    element('EncodingType', fields.encodingType) +
    element('IsTruncated', fields.isTruncated) +
    contents +
    prefixes +
    '</ListBucketResult>'
  );
}
