/**
 * The asset store other areas call (atoms, storefront, pipelines): one model for designs, images,
 * mockups, fonts and resources (public and private), blobs with refcounts, folders, the font
 * lookup, artifacts, anonymous URLs and the engine's view of a tenant's files.
 *
 * @example
 * const s = scopeFor(c.var.tenant, assetKind('design', true), ownerId);   // private designs of an owner
 * const row = await getAsset(s, id);                                        // 404 when not visible
 * const bytes = await readAssetBytes(env.FILES, row);
 */
export { ASSET_KINDS, RESOURCE_KINDS, ASSET_COLUMNS, assetRow as assetRowOf, assetKind, toDto, toResourceInfo, fileUrl, DTO_OF, DesignDto, ImageDto, MockupDto, FontDto, ResourceDto, ResourceInfoDto, type AssetKind, type AssetRow, type AssetType, type RetentionPolicy } from './model';
export * from './service';
export { FontLookup, resolveFonts, type FontRef, type FoundFont } from './fonts';
export { FolderDto, folderDtos, folderById, folderByPath, folderOr404, ensureFolder, createFolder, updateFolder, allFolders, childFolders, normalisePath, checkName, MAX_FOLDER_DEPTH } from './folders';
export { blobKey, stageBytes, stageStream, readStaged, commitStaged, sweepUnreferencedBlobs, type Staged } from './blobs';
export { engineError } from './engine-error';
export { analyseContent, analysePsd, pdfFacts, printProductFonts, printProductMetadata, LIMITS, STREAM_LIMIT } from './content';
export { receiveUpload, receiveFromUrl, headersFrom, uploadLimit, IMPORT_TIMEOUT_MS, type Received } from './upload';
export { serveFile, parseRange } from './download';
export { issueAnonymous, anonymousUrlOf, resolveAnonymous } from './anonymous';
export * from './artifacts';
export { readAssetBytes, TenantInputStore, WithImages, type HeldImage } from './engine-store';
export { deletePdfPages, pdfPageKey, pdfPagePng, storePdfPages, PDF_PAGE_LONG_SIDE } from './pdf-pages';
export { sweepAssets } from './cron';
// The store's reads and writes other areas make by id or path (typed rows; the SQL stays in ./store).
export { assetOfTypes, assetOfOwner, publicImageById, publicImageByPath, designIdByPath, finalArtifactsOfCompletedJobs, type TaskAssetRow, type PatternImageRow, type EarlierFinalArtifact } from './store';
export { selectAnyAsset, setDesignFonts, designOwner, resourceById, resourceByIdFor, publicResourceBySource, resourceIdNamed, swapDesignContent, type ResourceFile } from './store/assets';
export { blobKnown } from './store/blobs';
export { folderPathById } from './store/folders';
