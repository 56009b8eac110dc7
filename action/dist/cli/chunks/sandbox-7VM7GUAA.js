import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{printReady,sandbox}from"./chunk-5QOF27AN.js";import"./chunk-EEPJ67UW.js";import"./chunk-D4R22WCO.js";import"./chunk-DRZT7AZH.js";import"./chunk-7BXXIESX.js";import"./chunk-Y4RMNA4H.js";import"./chunk-PWDL4F5I.js";import"./chunk-IA7LBFIN.js";import"./chunk-6S5RZ7BF.js";import"./chunk-OKJV4Q3Q.js";import"./chunk-3JIWX2DO.js";import"./chunk-5LHPC7GM.js";import"./chunk-RWVFMDPA.js";import"./chunk-TFG732H6.js";import"./chunk-A75SA247.js";export{printReady,sandbox};
