/** The limits of part 8 of the contract. Gap values (rate limits per plan, body size...) live in gaps.ts. */
export const LIMITS = {
  page: { defaultLimit: 50, minLimit: 1, maxLimit: 200 },
  accessTokenLifetimeSeconds: 3600,
  idempotency: { windowHours: 24, maxKeyLength: 128 },
  fileUploadMaxBytes: 26_214_400,
  unreferencedFileRetentionHours: 24,
  signedDownloadUrlValiditySeconds: 3600,
  batch: { products: 500, priceEntries: 500, zReports: 500, itemSales: 5000 },
  journalLinesPerExport: 5000,
  length: {
    sku: 64,
    productName: 200,
    availabilityReason: 200,
    webhookDescription: 200,
    merchantName: 120,
    docNumber: 64,
    allocationNumber: 32,
  },
  /** Money above which an allocation number is mandatory (documents and expenses). */
  allocationNumberThreshold: '5000.00',
  webhook: {
    signatureToleranceSeconds: 300,
    maxAttempts: 8,
    disableAfterFailingHours: 24,
    responseSnippetMaxChars: 500,
    urlScheme: 'https:',
  },
} as const;
