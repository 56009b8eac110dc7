import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{MAX_SUMMARY_BYTES,newSummaryRecord,recordSummary,resultOfExit,runResult,summaryMarkdown}from"./chunk-GAIQWQV5.js";import"./chunk-A75SA247.js";export{MAX_SUMMARY_BYTES,newSummaryRecord,recordSummary,resultOfExit,runResult,summaryMarkdown};
