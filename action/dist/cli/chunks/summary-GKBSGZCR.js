import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{MAX_SUMMARY_BYTES,newSummaryRecord,recordSummary,resultOfExit,runResult,summaryMarkdown}from"./chunk-57FZFWHN.js";import"./chunk-737KWXNG.js";import"./chunk-YUVUSQOI.js";import"./chunk-3LXVKCGC.js";import"./chunk-6PITOX7L.js";import"./chunk-S4SZ24B7.js";import"./chunk-TFG732H6.js";import"./chunk-A75SA247.js";export{MAX_SUMMARY_BYTES,newSummaryRecord,recordSummary,resultOfExit,runResult,summaryMarkdown};
