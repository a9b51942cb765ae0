// Package openai is the OpenAI Responses lane ([lane.Lane]): POST
// {base}/responses with the instructions, the observation as the one user
// input message, the six function tools (type "function", name,
// description, parameters, strict false), tool_choice "required",
// parallel_tool_calls false, max_output_tokens and store false, and the
// credential as "Authorization: Bearer". An answer is a response object
// ("object": "response") naming the pinned model, status completed (or
// incomplete at max_output_tokens: a truncated answer), whose
// function_call output items are the tool calls and whose usage states
// input_tokens and output_tokens.
package openai
