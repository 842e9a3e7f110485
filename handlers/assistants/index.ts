export { createAssistant, listAssistants, getAssistant, modifyAssistant, deleteAssistant } from './assistants.js';
export { createThread, getThread, modifyThread, deleteThread } from './threads.js';
export { createMessage, listMessages, getMessage, modifyMessage, deleteMessage } from './messages.js';
export { createRun, createThreadAndRun, listRuns, getRun, modifyRun, cancelRun, submitToolOutputsToRun, listRunSteps, getRunStep } from './runs.js';
