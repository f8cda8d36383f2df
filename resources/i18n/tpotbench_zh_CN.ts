<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AdvancedSettings</name>
    <message>
        <source>Burstiness</source>
        <translation>突发度</translation>
    </message>
    <message>
        <source>Shape of the gaps between arrivals at a finite request rate (a gamma process, as vllm bench serve&apos;s --burstiness): 1 = Poisson, below 1 burstier, above 1 more regular. No effect at rate inf.</source>
        <translation>有限请求速率下到达间隔的形状（伽马过程，同 vllm bench serve 的 --burstiness）：1 为泊松分布，小于 1 更突发，大于 1 更均匀。速率为 inf 时无影响。</translation>
    </message>
    <message>
        <source>Warm-up requests</source>
        <translation>预热请求数</translation>
    </message>
    <message>
        <source>Requests sent before each point and left out of its figures (fills caches, compiles kernels).</source>
        <translation>每个测试点开始前发送、不计入结果的请求（用于填充缓存、编译内核）。</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Sampling temperature sent with every request; &apos;server default&apos; sends none. 0 is greedy decoding.</source>
        <translation>随每个请求发送的采样温度；“服务器默认”表示不发送此参数。0 为贪心解码。</translation>
    </message>
    <message>
        <source>Load workers</source>
        <translation>负载进程数</translation>
    </message>
    <message>
        <source>Processes that send each point&apos;s requests (one core each; Ray actors when the endpoint names a Ray cluster). One process is enough below a few hundred streams; more keep the timing exact at thousands.</source>
        <translation>发送每个测试点请求的进程数（每个进程占一个核心；端点指定了 Ray 集群时为 Ray actor）。几百个并发流以内一个进程就够；上千个流时多开几个，计时才准。</translation>
    </message>
    <message>
        <source>Request time-out</source>
        <translation>请求超时</translation>
    </message>
    <message>
        <source>Longest one request may take, first byte sent to last byte read: a server that drips bytes is cut off and the request counted as failed (timeout). &apos;engine default&apos; sends none.</source>
        <translation>单个请求最长可用的时间（从发出第一个字节到读完最后一个字节）：逐字节慢慢返回的服务器会被截断，该请求计为失败（超时）。“引擎默认”表示不传此参数。</translation>
    </message>
    <message>
        <source>server default</source>
        <translation>服务器默认</translation>
    </message>
    <message>
        <source>engine default</source>
        <translation>引擎默认</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
</context>
<context>
    <name>BatchPlot</name>
    <message>
        <source>TPOT (ms)</source>
        <translation>TPOT（毫秒）</translation>
    </message>
    <message>
        <source>batch (running sequences)</source>
        <translation>批大小（运行中的序列数）</translation>
    </message>
    <message>
        <source>floor</source>
        <translation>下限</translation>
    </message>
    <message>
        <source>c{c}: {mbu:.0f}%</source>
        <translation>c{c}：{mbu:.0f}%</translation>
    </message>
    <message>
        <source>batch-1 floor {v:.1f} ms</source>
        <translation>批大小 1 下限 {v:.1f} ms</translation>
    </message>
    <message>
        <source>measured p50–p99</source>
        <translation>实测 p50–p99</translation>
    </message>
    <message>
        <source>live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>The decode floor over batch size; each sweep point&apos;s TPOT p50 (dot) and p99 (top of its bar), labelled with its concurrency and MBU; the live TPOT of a probe or a running sweep (diamond).</source>
        <translation>随批大小变化的解码下限；每个扫描测试点的 TPOT p50（圆点）与 p99（竖条顶端），标注其并发数和 MBU；探测或运行中扫描的实时 TPOT（菱形）。</translation>
    </message>
    <message>
        <source>KV full
at {n}</source>
        <translation>KV 满
于 {n}</translation>
    </message>
</context>
<context>
    <name>CapacityLine</name>
    <message>
        <source>meets every SLO</source>
        <translation>满足全部 SLO</translation>
    </message>
    <message>
        <source>fails</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>is marginal</source>
        <translation>处于临界</translation>
    </message>
    <message>
        <source>Search: {0}: {1}</source>
        <translation>搜索：{0}：{1}</translation>
    </message>
    <message>
        <source>capacity between {0} and {1}</source>
        <translation>容量介于 {0} 与 {1} 之间</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>better</source>
        <translation>更好</translation>
    </message>
    <message>
        <source>worse</source>
        <translation>更差</translation>
    </message>
    <message>
        <source>no significant change</source>
        <translation>无显著变化</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>no per-request gaps (needs --save-detailed)</source>
        <translation>没有逐请求的间隔（需要 --save-detailed）</translation>
    </message>
    <message>
        <source>no goodput limits recorded (sweep --goodput)</source>
        <translation>未记录 goodput 限值（sweep --goodput）</translation>
    </message>
    <message>
        <source>no per-request samples (vllm bench serve without --save-detailed)</source>
        <translation>没有逐请求样本（vllm bench serve 未加 --save-detailed）</translation>
    </message>
    <message>
        <source>too few values for this statistic&apos;s interval ({0})</source>
        <translation>样本太少，无法给出该统计量的区间（{0}）</translation>
    </message>
    <message>
        <source>Base</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Match the two runs&apos; points (same rate, concurrency and dataset) and test every figure&apos;s change with a 95 % interval</source>
        <translation>匹配两次运行中速率、并发和数据集相同的测试点，并用 95 % 区间检验每个指标的变化</translation>
    </message>
    <message>
        <source>Point</source>
        <translation>测试点</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Change %</source>
        <translation>变化 %</translation>
    </message>
    <message>
        <source>95 % interval</source>
        <translation>95 % 区间</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>{0}: bootstrap over per-request samples (time blocks), {1} resamples; each interval {2}, so the point&apos;s intervals hold together at 95 %.</source>
        <translation>{0}：基于逐请求样本的自助法（按时间分块），重采样 {1} 次；每个区间为 {2}，使该测试点的全部区间合计满足 95 %。</translation>
    </message>
    <message>
        <source>{0}: Welch t interval over repeated runs ({1} vs {2}); each interval {3}.</source>
        <translation>{0}：基于重复运行的 Welch t 区间（{1} 次对 {2} 次）；每个区间为 {3}。</translation>
    </message>
    <message>
        <source>{0}: no per-request samples on one side: intervals unknown (run with --save-detailed).</source>
        <translation>{0}：一侧没有逐请求样本，区间未知（请用 --save-detailed 运行）。</translation>
    </message>
    <message>
        <source>All {0} points</source>
        <translation>全部 {0} 个测试点</translation>
    </message>
    <message>
        <source>Pick two runs and press Compare.</source>
        <translation>选择两次运行，然后点击“对比”。</translation>
    </message>
    <message>
        <source>Only in base (not compared): {0}</source>
        <translation>仅在基线中（未比较）：{0}</translation>
    </message>
    <message>
        <source>Only in candidate (not compared): {0}</source>
        <translation>仅在候选中（未比较）：{0}</translation>
    </message>
    <message>
        <source>No matching points (same rate, concurrency and dataset).</source>
        <translation>没有可匹配的测试点（速率、并发和数据集均相同）。</translation>
    </message>
    <message>
        <source>Changes under {0} count as no significant change.</source>
        <translation>小于 {0} 的变化视为无显著变化。</translation>
    </message>
    <message>
        <source>unknown: {0}</source>
        <translation>未知：{0}</translation>
    </message>
</context>
<context>
    <name>CrashHandler</name>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Something went wrong inside TPOT Bench: {error}

The details were written to the log file:
{path}

Finished results are already saved. Please include the log file if you report this.</source>
        <translation>TPOT Bench 内部出错：{error}

详细信息已写入日志文件：
{path}

已完成的结果均已保存。报告问题时请附上该日志文件。</translation>
    </message>
</context>
<context>
    <name>CustomGpuDialog</name>
    <message>
        <source>Add a GPU</source>
        <translation>添加 GPU</translation>
    </message>
    <message>
        <source>datasheet name or URL</source>
        <translation>数据手册名称或网址</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source> TFLOPS</source>
        <translation> TFLOPS</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>标识</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>Dense BF16/FP16 tensor</source>
        <translation>稠密 BF16/FP16 张量算力</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Give the GPU an id and say where the numbers come from.</source>
        <translation>请为 GPU 填写标识，并注明这些数字的来源。</translation>
    </message>
</context>
<context>
    <name>DatasetFields</name>
    <message>
        <source>Synthetic ShareGPT (shipped)</source>
        <translation>合成 ShareGPT（内置）</translation>
    </message>
    <message>
        <source>Conversations, multi-turn (shipped)</source>
        <translation>多轮对话（内置）</translation>
    </message>
    <message>
        <source>Shared prefixes (prefix caching)</source>
        <translation>共享前缀（前缀缓存）</translation>
    </message>
    <message>
        <source>Mooncake trace replay</source>
        <translation>Mooncake 轨迹回放</translation>
    </message>
    <message>
        <source>ShareGPT JSON file</source>
        <translation>ShareGPT JSON 文件</translation>
    </message>
    <message>
        <source>Random lengths</source>
        <translation>随机长度</translation>
    </message>
    <message>
        <source>Prompts file (text lines or JSONL)</source>
        <translation>提示词文件（每行一条或 JSONL）</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Dataset file</source>
        <translation>数据集文件</translation>
    </message>
    <message>
        <source>Random tokens</source>
        <translation>随机 token 数</translation>
    </message>
    <message>
        <source>Shared prefixes</source>
        <translation>共享前缀</translation>
    </message>
    <message>
        <source>Per prompt</source>
        <translation>每条提示</translation>
    </message>
    <message>
        <source>Trace speed-up</source>
        <translation>轨迹加速倍数</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>in</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>out</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>length</source>
        <translation>长度</translation>
    </message>
    <message>
        <source>suffix</source>
        <translation>后缀</translation>
    </message>
    <message>
        <source>Each session</source>
        <translation>每个会话</translation>
    </message>
    <message>
        <source>turns</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>think</source>
        <translation>思考</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Distinct prefixes; the prompts take turns using them (vLLM: --prefix-repetition-num-prefixes).</source>
        <translation>不同前缀的个数，提示轮流使用它们（vLLM：--prefix-repetition-num-prefixes）。</translation>
    </message>
    <message>
        <source>Tokens in each shared prefix, which a prefix cache can reuse (--prefix-repetition-prefix-len).</source>
        <translation>每个共享前缀的 token 数，前缀缓存可以复用这部分（--prefix-repetition-prefix-len）。</translation>
    </message>
    <message>
        <source>Unique tokens after the prefix in every prompt (--prefix-repetition-suffix-len).</source>
        <translation>每条提示在前缀之后独有的 token 数（--prefix-repetition-suffix-len）。</translation>
    </message>
    <message>
        <source>Replay the trace this many times faster than its timestamps (--trace-speedup). Its timestamps replace the request rate.</source>
        <translation>以轨迹时间戳的这么多倍速度回放（--trace-speedup）。轨迹的时间戳取代请求速率。</translation>
    </message>
    <message>
        <source>Tokens requested per reply (--prefix-repetition-output-len).</source>
        <translation>每个回复请求生成的 token 数（--prefix-repetition-output-len）。</translation>
    </message>
    <message>
        <source>At most this many user turns (requests) of each conversation; &apos;all&apos; sends every turn (--max-turns).</source>
        <translation>每个对话最多发送这么多轮用户消息（请求）；“全部”表示发送每一轮（--max-turns）。</translation>
    </message>
    <message>
        <source>Mean seconds a user thinks before each turn after the first (--think-time; AIPerf: --conversation-turn-delay-mean, in ms).</source>
        <translation>首轮之后每一轮发送前用户思考的平均秒数（--think-time；AIPerf 对应 --conversation-turn-delay-mean，单位为毫秒）。</translation>
    </message>
    <message>
        <source>Standard deviation of the think time, a normal cut at 0; 0 keeps it fixed (--think-time-stddev).</source>
        <translation>思考时间的标准差（正态分布，小于 0 截断为 0）；0 表示固定不变（--think-time-stddev）。</translation>
    </message>
    <message>
        <source>Standard deviation of the think time</source>
        <translation>思考时间的标准差</translation>
    </message>
    <message>
        <source>Empty: the shipped synthetic trace</source>
        <translation>留空：使用内置的合成轨迹</translation>
    </message>
    <message>
        <source>Empty: the shipped conversations</source>
        <translation>留空：使用内置的对话数据</translation>
    </message>
    <message>
        <source>Choose a dataset file</source>
        <translation>选择数据集文件</translation>
    </message>
    <message>
        <source>The dataset file {0} does not exist.</source>
        <translation>数据集文件 {0} 不存在。</translation>
    </message>
    <message>
        <source>Choose a dataset file, or pick another dataset.</source>
        <translation>请选择数据集文件，或改用其他数据集。</translation>
    </message>
</context>
<context>
    <name>Declutter</name>
    <message>
        <source>Not labelled on the chart (no room): {names}</source>
        <translation>图上放不下的标签：{names}</translation>
    </message>
</context>
<context>
    <name>DefinitionsTable</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Point</source>
        <translation>测试点</translation>
    </message>
    <message>
        <source>{0}: {1} ({2}, {3}); weighting: {4}</source>
        <translation>{0}：{1}（{2}，{3}）；加权方式：{4}</translation>
    </message>
    <message>
        <source>needs --save-detailed</source>
        <translation>需要 --save-detailed</translation>
    </message>
</context>
<context>
    <name>DistributionsView</name>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>ITL</source>
        <translation>ITL</translation>
    </message>
    <message>
        <source>E2E latency</source>
        <translation>端到端延迟</translation>
    </message>
    <message>
        <source>Histogram</source>
        <translation>直方图</translation>
    </message>
    <message>
        <source>CDF (cumulative)</source>
        <translation>CDF（累积分布）</translation>
    </message>
    <message>
        <source>TTFT vs prompt tokens</source>
        <translation>TTFT 与提示 token 数</translation>
    </message>
    <message>
        <source>E2E latency vs output tokens</source>
        <translation>端到端延迟与输出 token 数</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>A logarithmic time axis keeps a long tail readable next to the bulk.</source>
        <translation>对数时间轴让长尾与主体同时清晰可读。</translation>
    </message>
    <message>
        <source>Click a point in the table to see its distributions.</source>
        <translation>点击表格中的测试点即可查看其分布。</translation>
    </message>
    <message>
        <source>{0} request(s), {1} failed.</source>
        <translation>{0} 个请求，{1} 个失败。</translation>
    </message>
    <message>
        <source>{0} request(s), none failed.</source>
        <translation>{0} 个请求，无失败。</translation>
    </message>
    <message>
        <source>{0} (ms)</source>
        <translation>{0}（毫秒）</translation>
    </message>
    <message>
        <source>{0}: share of requests at or below</source>
        <translation>{0}：不高于该值的请求占比</translation>
    </message>
    <message>
        <source>% of requests</source>
        <translation>请求占比（%）</translation>
    </message>
    <message>
        <source>{0}: histogram</source>
        <translation>{0}：直方图</translation>
    </message>
    <message>
        <source>% per bin</source>
        <translation>每个区间的占比（%）</translation>
    </message>
    <message>
        <source>output tokens</source>
        <translation>输出 token 数</translation>
    </message>
    <message>
        <source>E2E latency (ms)</source>
        <translation>端到端延迟（毫秒）</translation>
    </message>
    <message>
        <source>prompt tokens</source>
        <translation>提示 token 数</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT（毫秒）</translation>
    </message>
    <message>
        <source>failed (time to failure)</source>
        <translation>失败（至失败的时间）</translation>
    </message>
</context>
<context>
    <name>DoctorMessages</name>
    <message>
        <source>POST {url} got no answer, so the path is unconfirmed</source>
        <translation>POST {url} 没有得到应答，路径无法确认</translation>
    </message>
    <message>
        <source>POST {url}: {error}</source>
        <translation>POST {url}：{error}</translation>
    </message>
    <message>
        <source>{title} for {host}: {message}</source>
        <translation>{host}：{title}（{message}）</translation>
    </message>
    <message>
        <source>{host} answered in {ms:.0f} ms</source>
        <translation>{host} 在 {ms:.0f} 毫秒内应答</translation>
    </message>
    <message>
        <source>POST {url} is redirected (HTTP {status}) to {location}</source>
        <translation>POST {url} 被重定向（HTTP {status}）到 {location}</translation>
    </message>
    <message>
        <source>Use the URL it redirects to as the base URL (often https:// instead of http://): clients do not send a POST body on through a redirect.</source>
        <translation>把重定向的目标地址用作基础 URL（常见情况是 https:// 而不是 http://）：客户端跟随重定向时不会再次发送 POST 请求体。</translation>
    </message>
    <message>
        <source>not run: {why}</source>
        <translation>未运行：{why}</translation>
    </message>
    <message>
        <source>nothing is listening at {host} (connection refused)</source>
        <translation>{host} 上没有服务在监听（连接被拒绝）</translation>
    </message>
    <message>
        <source>the server could not be reached</source>
        <translation>无法连接到服务器</translation>
    </message>
    <message>
        <source>authentication failed</source>
        <translation>认证失败</translation>
    </message>
    <message>
        <source>the non-streaming request failed</source>
        <translation>非流式请求失败</translation>
    </message>
    <message>
        <source>no completions endpoint answered</source>
        <translation>没有任何 completions 端点应答</translation>
    </message>
    <message>
        <source>the endpoint redirects</source>
        <translation>端点发生了重定向</translation>
    </message>
    <message>
        <source>the model is not served</source>
        <translation>服务器没有提供该模型</translation>
    </message>
    <message>
        <source>Pass one of the served ids with --model; vLLM serves the name given by --served-model-name (e.g. --served-model-name qwen2.5-7b).</source>
        <translation>用 --model 传入服务器提供的某个模型 ID；vLLM 对外使用 --served-model-name 指定的名称（例如 --served-model-name qwen2.5-7b）。</translation>
    </message>
    <message>
        <source>&apos;{model}&apos; is served (served ids: {served})</source>
        <translation>服务器提供 &apos;{model}&apos;（提供的模型 ID：{served}）</translation>
    </message>
    <message>
        <source>HTTP {status}: {error}{retry_after}</source>
        <translation>HTTP {status}：{error}{retry_after}</translation>
    </message>
    <message>
        <source>{events} SSE events, {content} with text, finish_reason={finish}</source>
        <translation>{events} 个 SSE 事件，其中 {content} 个带文本，finish_reason={finish}</translation>
    </message>
    <message>
        <source>{seen}, [DONE] seen, usage: {tokens} completion tokens</source>
        <translation>{seen}，收到 [DONE]，usage：{tokens} 个 completion token</translation>
    </message>
    <message>
        <source>Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected.</source>
        <translation>服务器端图表（KV 缓存、队列）将保持为空；客户端测得的数据不受影响。</translation>
    </message>
    <message>
        <source>{server} at {url}{capacity}{fit}</source>
        <translation>{url} 上是 {server}{capacity}{fit}</translation>
    </message>
    <message>
        <source>&apos;{model}&apos; is not served; served ids: {served}</source>
        <translation>服务器没有提供 &apos;{model}&apos;；提供的模型 ID：{served}</translation>
    </message>
    <message>
        <source>&apos;{model}&apos; accepted (the server publishes no model list)</source>
        <translation>&apos;{model}&apos; 被接受（服务器没有公开模型列表）</translation>
    </message>
    <message>
        <source>no SSE events (content-type {content_type})</source>
        <translation>没有收到 SSE 事件（content-type 为 {content_type}）</translation>
    </message>
    <message>
        <source>{seen}; {malformed} not valid JSON</source>
        <translation>{seen}；其中 {malformed} 个不是有效的 JSON</translation>
    </message>
    <message>
        <source>{seen}; no [DONE]</source>
        <translation>{seen}；没有收到 [DONE]</translation>
    </message>
    <message>
        <source>no Prometheus metrics at {url} (HTTP {status})</source>
        <translation>{url} 上没有 Prometheus 指标（HTTP {status}）</translation>
    </message>
    <message>
        <source>Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected. Gateways usually hide /metrics.</source>
        <translation>服务器端图表（KV 缓存、队列）将保持为空；客户端测得的数据不受影响。网关通常不开放 /metrics。</translation>
    </message>
    <message>
        <source>; KV cache {blocks:,} blocks × {block_size} = {tokens:,} tokens</source>
        <translation>；KV 缓存 {blocks:,} 块 × {block_size} = {tokens:,} 个 token</translation>
    </message>
    <message>
        <source>; {n} requests of the full {context:,}-token context fit at once</source>
        <translation>；可同时容纳 {n} 个占满 {context:,} token 上下文的请求</translation>
    </message>
    <message>
        <source>no model given and the server lists none</source>
        <translation>没有指定模型，服务器也没有列出任何模型</translation>
    </message>
    <message>
        <source>&apos;{model}&apos; is unknown: {error}</source>
        <translation>服务器不认识 &apos;{model}&apos;：{error}</translation>
    </message>
    <message>
        <source>&apos;choices&apos; present; reply: {reply!r}</source>
        <translation>包含 &apos;choices&apos;；回复：{reply!r}</translation>
    </message>
    <message>
        <source>it is not JSON</source>
        <translation>返回的不是 JSON</translation>
    </message>
    <message>
        <source>it has no &apos;choices&apos;</source>
        <translation>返回中没有 &apos;choices&apos;</translation>
    </message>
    <message>
        <source>HTTP 200 but {why} (the KeyError: &apos;choices&apos; case); body: {excerpt}</source>
        <translation>HTTP 200，但{why}（即 KeyError: &apos;choices&apos; 的情形）；返回体：{excerpt}</translation>
    </message>
    <message>
        <source>the stream broke after {events} events: {error}</source>
        <translation>流在 {events} 个事件后中断：{error}</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>{seen}, [DONE] seen, but no usage in the stream</source>
        <translation>{seen}，收到 [DONE]，但流中没有 usage</translation>
    </message>
    <message>
        <source>Token counts will be estimated with a tokenizer and results marked estimated; a server that honours stream_options.include_usage (vLLM does) gives exact counts.</source>
        <translation>token 数将用分词器估算，结果会标为估算值；支持 stream_options.include_usage 的服务器（vLLM 支持）会给出准确的计数。</translation>
    </message>
    <message>
        <source>{url} answered, but not with Prometheus text: {excerpt}</source>
        <translation>{url} 有应答，但不是 Prometheus 文本格式：{excerpt}</translation>
    </message>
    <message>
        <source>; KV cache {tokens:,} tokens</source>
        <translation>；KV 缓存 {tokens:,} 个 token</translation>
    </message>
    <message>
        <source>no model given; the server serves: {served}</source>
        <translation>没有指定模型；服务器提供：{served}</translation>
    </message>
    <message>
        <source>Pass --model {model} so requests and results name the model.</source>
        <translation>传入 --model {model}，让请求和结果都带上模型名。</translation>
    </message>
    <message>
        <source>HTTP {status} with a {api} body: {excerpt}; the same URL answers a {other} body, so it is the {other} endpoint</source>
        <translation>用 {api} 格式的请求体得到 HTTP {status}：{excerpt}；同一 URL 能应答 {other} 格式的请求体，所以它是 {other} 端点</translation>
    </message>
    <message>
        <source> (Retry-After: {seconds} s)</source>
        <translation>（Retry-After：{seconds} 秒）</translation>
    </message>
    <message>
        <source>HTTP {status} for stream=true: {error}</source>
        <translation>stream=true 时得到 HTTP {status}：{error}</translation>
    </message>
    <message>
        <source>{url}: {error}</source>
        <translation>{url}：{error}</translation>
    </message>
    <message>
        <source>Use --backend {backend} with this URL, or point --endpoint at the {api} path; backend and endpoint must match.</source>
        <translation>对这个 URL 使用 --backend {backend}，或把 --endpoint 指向 {api} 路径；backend 与端点必须一致。</translation>
    </message>
    <message>
        <source> ({source})</source>
        <translation>（{source}）</translation>
    </message>
    <message>
        <source>accepted {header}{source}</source>
        <translation>已接受 {header}{source}</translation>
    </message>
    <message>
        <source>a leading {what}</source>
        <translation>开头多了一个{what}</translation>
    </message>
    <message>
        <source>a trailing {what}</source>
        <translation>末尾多了一个{what}</translation>
    </message>
    <message>
        <source>whitespace inside it</source>
        <translation>中间有空白字符</translation>
    </message>
    <message>
        <source>quotes around it</source>
        <translation>两边带了引号</translation>
    </message>
    <message>
        <source>the word &apos;Bearer&apos; in it (TPOT Bench adds that itself)</source>
        <translation>含有 &apos;Bearer&apos; 一词（TPOT Bench 会自动加上）</translation>
    </message>
    <message>
        <source>HTTP {status}: the server rejected {header}{source}; the key has {problems}</source>
        <translation>HTTP {status}：服务器拒绝了 {header}{source}；密钥的问题：{problems}</translation>
    </message>
    <message>
        <source>HTTP {status}: the server rejected {header}{source}: a key for another endpoint, mistyped, or expired</source>
        <translation>HTTP {status}：服务器拒绝了 {header}{source}：可能是别的端点的密钥、输错了或已过期</translation>
    </message>
    <message>
        <source>not confirmed: every URL tried answered 404/405, so the key was never checked</source>
        <translation>未确认：尝试的每个 URL 都返回 404/405，密钥根本没有被检查</translation>
    </message>
    <message>
        <source>Fix the path first (next check), then run the doctor again.</source>
        <translation>先修正路径（下一项检查），再重新检查一次。</translation>
    </message>
    <message>
        <source>no key sent, and the server did not ask for one</source>
        <translation>没有发送密钥，服务器也不需要</translation>
    </message>
    <message>
        <source>accepted {header}{source}, but the key has {problems}; TPOT Bench strips surrounding whitespace before sending</source>
        <translation>已接受 {header}{source}，但密钥的问题：{problems}；TPOT Bench 发送前会去掉首尾空白</translation>
    </message>
    <message>
        <source>Remove the stray characters where the key is stored: curl, vllm bench serve and SDKs send it as is and get 401.</source>
        <translation>在保存密钥的地方删掉多余的字符：curl、vllm bench serve 和各种 SDK 会原样发送，结果得到 401。</translation>
    </message>
    <message>
        <source>HTTP {status}: the server wants a key and none was sent{source}</source>
        <translation>HTTP {status}：服务器需要密钥，但没有发送{source}</translation>
    </message>
    <message>
        <source>Set the key in the environment variable named by --api-key-env (e.g. export OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a gateway does.</source>
        <translation>在 --api-key-env 指定的环境变量中（例如 export OPENAI_API_KEY=...）或在端点配置中设置密钥；本地 vLLM 不需要密钥，网关需要。</translation>
    </message>
    <message>
        <source>POST {url} answered HTTP {status}</source>
        <translation>POST {url} 返回 HTTP {status}</translation>
    </message>
    <message>
        <source>POST {url} gave HTTP {status}; none of these answered either: {tried}</source>
        <translation>POST {url} 返回 HTTP {status}；以下地址也都没有应答：{tried}</translation>
    </message>
    <message>
        <source>{url} answers (HTTP {status}) after a correction: {notes}</source>
        <translation>{url} 经修正后有应答（HTTP {status}）：{notes}</translation>
    </message>
    <message>
        <source>Write the base URL as {root} (with --endpoint {endpoint}): TPOT Bench repaired it, but vllm bench serve and other clients would get 404.</source>
        <translation>把基础 URL 写成 {root}（配合 --endpoint {endpoint}）：TPOT Bench 自动修正了它，但 vllm bench serve 和其他客户端会得到 404。</translation>
    </message>
    <message>
        <source>{url} answers (HTTP {status}), but the base URL carries the API path</source>
        <translation>{url} 有应答（HTTP {status}），但基础 URL 中带了 API 路径</translation>
    </message>
    <message>
        <source>Pass the server root {root} as the base URL and the path as --endpoint: vllm bench serve appends --endpoint to the base URL.</source>
        <translation>把服务器根地址 {root} 作为基础 URL，路径用 --endpoint 传入：vllm bench serve 会把 --endpoint 拼接在基础 URL 后面。</translation>
    </message>
    <message>
        <source>POST {url} gave HTTP {status}; {candidate} answers instead</source>
        <translation>POST {url} 返回 HTTP {status}；而 {candidate} 有应答</translation>
    </message>
    <message>
        <source>Use --base-url {base} (requests then go to {candidate}).</source>
        <translation>使用 --base-url {base}（请求将发往 {candidate}）。</translation>
    </message>
    <message>
        <source>the API key contains a line break or another control character; not sent</source>
        <translation>API 密钥中含有换行符或其他控制字符；未发送</translation>
    </message>
    <message>
        <source>Remove the stray characters where the key is stored (environment variable, keyring entry or the profile&apos;s key field).</source>
        <translation>请在保存密钥的地方（环境变量、钥匙串条目或配置的密钥栏）删除这些多余字符。</translation>
    </message>
    <message>
        <source>the API key cannot be sent</source>
        <translation>API 密钥无法发送</translation>
    </message>
    <message>
        <source>accepted {header}{source}, but over plain http:// to {host}: the key crossed the network unencrypted</source>
        <translation>已接受 {header}{source}，但经由明文 http:// 发往 {host}：密钥未加密地在网络上传输</translation>
    </message>
    <message>
        <source>Use https:// for this server, or reach it through an SSH tunnel to localhost: anyone on the way can read the key.</source>
        <translation>请对该服务器使用 https://，或通过 SSH 隧道经 localhost 访问：途经网络上的任何人都能读到密钥。</translation>
    </message>
    <message>
        <source>POST {url} gave HTTP {status}, but {candidate} answers: the server serves the {other} API, not {api} (the chat vs completions mix-up)</source>
        <translation>POST {url} 返回 HTTP {status}，但 {candidate} 有响应：服务器提供的是 {other} API，而不是 {api}（chat 与 completions 混用）</translation>
    </message>
    <message>
        <source>Use --backend {backend} --endpoint {endpoint} (in the window: API {other}); chat and completions are separate endpoints and a server may serve only one.</source>
        <translation>请使用 --backend {backend} --endpoint {endpoint}（窗口中：API 选 {other}）；chat 与 completions 是两个不同的端点，服务器可能只提供其中一个。</translation>
    </message>
    <message>
        <source>host name not found</source>
        <translation>找不到主机名</translation>
    </message>
    <message>
        <source>Check the host name in the base URL (typo? VPN or proxy needed?).</source>
        <translation>检查基础 URL 中的主机名（是否拼错？是否需要 VPN 或代理？）。</translation>
    </message>
    <message>
        <source>connection refused or reset</source>
        <translation>连接被拒绝或被重置</translation>
    </message>
    <message>
        <source>Check that the server is running and listening on this host and port (try GET /v1/models), and that the base URL uses the right port.</source>
        <translation>确认服务器正在运行并在这个主机和端口上监听（试试 GET /v1/models），以及基础 URL 中的端口是否正确。</translation>
    </message>
    <message>
        <source>TLS handshake or certificate failed</source>
        <translation>TLS 握手或证书校验失败</translation>
    </message>
    <message>
        <source>Use https:// only if the server speaks TLS; for a self-signed certificate turn off certificate verification for this endpoint.</source>
        <translation>只有服务器支持 TLS 时才用 https://；如果是自签名证书，请为这个端点关闭证书校验。</translation>
    </message>
    <message>
        <source>no answer within the time limit</source>
        <translation>在时限内没有应答</translation>
    </message>
    <message>
        <source>The server or network is too slow or stalled; check that it is not overloaded, or raise --timeout (longest silence) or --request-timeout (whole request).</source>
        <translation>服务器或网络太慢或已停滞；请检查它是否过载，或调大 --timeout（最长静默时间）或 --request-timeout（整个请求的时限）。</translation>
    </message>
    <message>
        <source>HTTP redirect (not followed)</source>
        <translation>HTTP 重定向（未跟随）</translation>
    </message>
    <message>
        <source>Use the URL it redirects to as the base URL (often https:// instead of http://): a benchmark does not follow redirects, and clients drop a POST body through them.</source>
        <translation>请把重定向的目标地址用作基础 URL（通常是 https:// 而不是 http://）：基准测试不跟随重定向，客户端经过重定向时也会丢掉 POST 请求体。</translation>
    </message>
    <message>
        <source>stream message is not the expected JSON</source>
        <translation>流消息不是预期的 JSON</translation>
    </message>
    <message>
        <source>{host} answered (HTTP {status}), but its reply to GET {url} {problem}; the checks that need no model list go on</source>
        <translation>{host} 已应答（HTTP {status}），但它对 GET {url} 的回复{problem}；不需要模型列表的检查继续进行</translation>
    </message>
    <message>
        <source>A model list is a few kilobytes and comes at once: check that the URL points at the API itself (not a proxy or a page in front of it) and that the server is healthy.</source>
        <translation>模型列表只有几 KB，且应一次返回：请确认 URL 指向 API 本身（而不是其前面的代理或网页），并检查服务器是否正常。</translation>
    </message>
    <message>
        <source>is larger than {mib} MiB</source>
        <translation>超过 {mib} MiB</translation>
    </message>
    <message>
        <source>could not be read ({error})</source>
        <translation>无法读取（{error}）</translation>
    </message>
    <message>
        <source>did not finish within {s:g} s (--request-timeout)</source>
        <translation>未在 {s:g} 秒内完成（--request-timeout）</translation>
    </message>
    <message>
        <source>stalled: nothing arrived for {s:g} s (--timeout)</source>
        <translation>停滞：{s:g} 秒内没有收到任何数据（--timeout）</translation>
    </message>
    <message>
        <source>HTTP 200, but the reply is an event stream although the request said &quot;stream&quot;: false: the server streams regardless</source>
        <translation>HTTP 200，但请求已写明 &quot;stream&quot;: false，回复仍是事件流：服务器无论如何都以流式返回</translation>
    </message>
    <message>
        <source>Benchmarks stream, so their figures are unaffected; a client that needs one JSON reply gets KeyError: &apos;choices&apos; from this server. Check the server&apos;s or gateway&apos;s streaming setting.</source>
        <translation>基准测试使用流式请求，其数据不受影响；需要单个 JSON 回复的客户端会从该服务器得到 KeyError: &apos;choices&apos;。请检查服务器或网关的流式设置。</translation>
    </message>
    <message>
        <source>typed in the API key field, not saved</source>
        <translation>在 API 密钥栏中输入、尚未保存</translation>
    </message>
    <message>
        <source>HTTP 400 bad request</source>
        <translation>HTTP 400 错误请求</translation>
    </message>
    <message>
        <source>The server rejected the request body; read the message (max_tokens too large for the context, unsupported parameter, wrong model id).</source>
        <translation>服务器拒绝了请求体；请阅读返回的信息（max_tokens 超出上下文长度、不支持的参数、模型 ID 错误）。</translation>
    </message>
    <message>
        <source>HTTP 401 unauthorized</source>
        <translation>HTTP 401 未授权</translation>
    </message>
    <message>
        <source>Send a valid key: set it in the environment variable named by --api-key-env (or OPENAI_API_KEY / API_KEY) without stray spaces; local vLLM needs none.</source>
        <translation>发送有效的密钥：把它设置在 --api-key-env 指定的环境变量中（或 OPENAI_API_KEY / API_KEY），不要带多余的空格；本地 vLLM 不需要密钥。</translation>
    </message>
    <message>
        <source>HTTP 403 forbidden</source>
        <translation>HTTP 403 禁止访问</translation>
    </message>
    <message>
        <source>The key is valid but not allowed here: check its permissions, quota or expiry, and that it belongs to this endpoint.</source>
        <translation>密钥有效，但无权访问这里：检查它的权限、配额或有效期，以及它是否属于这个端点。</translation>
    </message>
    <message>
        <source>HTTP 404 not found</source>
        <translation>HTTP 404 未找到</translation>
    </message>
    <message>
        <source>The path or model is wrong: check /v1 is neither missing nor doubled, that the endpoint matches the API (chat vs completions), and that the model id is served.</source>
        <translation>路径或模型不对：检查 /v1 既没有漏掉也没有重复，端点与 API 类型一致（chat 还是 completions），以及服务器提供该模型 ID。</translation>
    </message>
    <message>
        <source>HTTP 405 method not allowed</source>
        <translation>HTTP 405 方法不允许</translation>
    </message>
    <message>
        <source>The URL points at something that is not a completions endpoint; check the base URL and endpoint path.</source>
        <translation>这个 URL 指向的不是 completions 端点；检查基础 URL 和端点路径。</translation>
    </message>
    <message>
        <source>HTTP 413 request too large</source>
        <translation>HTTP 413 请求过大</translation>
    </message>
    <message>
        <source>The prompt is larger than the server or gateway accepts; use shorter prompts.</source>
        <translation>提示词超过了服务器或网关能接受的大小；请使用更短的提示词。</translation>
    </message>
    <message>
        <source>HTTP 422 unprocessable request</source>
        <translation>HTTP 422 无法处理的请求</translation>
    </message>
    <message>
        <source>The server did not accept a field of the request; read the message for the field.</source>
        <translation>服务器不接受请求中的某个字段；从返回的信息中找出是哪个字段。</translation>
    </message>
    <message>
        <source>HTTP 429 rate limited</source>
        <translation>HTTP 429 被限流</translation>
    </message>
    <message>
        <source>The server or gateway is throttling: lower --request-rate or --max-concurrency, or raise the key&apos;s rate limit.</source>
        <translation>服务器或网关正在限流：降低 --request-rate 或 --max-concurrency，或提高该密钥的速率限制。</translation>
    </message>
    <message>
        <source>HTTP client error</source>
        <translation>HTTP 客户端错误</translation>
    </message>
    <message>
        <source>The server refused the request; read the message it returned.</source>
        <translation>服务器拒绝了请求；请阅读它返回的信息。</translation>
    </message>
    <message>
        <source>HTTP server error</source>
        <translation>HTTP 服务器错误</translation>
    </message>
    <message>
        <source>The server failed internally (overloaded, crashed, out of memory); check its log.</source>
        <translation>服务器内部出错（过载、崩溃、显存或内存不足）；查看它的日志。</translation>
    </message>
    <message>
        <source>response is not an event stream</source>
        <translation>响应不是事件流</translation>
    </message>
    <message>
        <source>The server answered without Server-Sent Events; check that it supports &quot;stream&quot;: true on this endpoint and that the URL is the API, not a web page.</source>
        <translation>服务器的应答不是 Server-Sent Events；检查它在这个端点上是否支持 &quot;stream&quot;: true，以及这个 URL 是 API 而不是网页。</translation>
    </message>
    <message>
        <source>stream ended early</source>
        <translation>流提前结束</translation>
    </message>
    <message>
        <source>The connection closed before the reply finished (no finish_reason, no [DONE]); check the server log or a proxy&apos;s timeout.</source>
        <translation>回复还没结束连接就关闭了（没有 finish_reason，也没有 [DONE]）；检查服务器日志或代理的超时设置。</translation>
    </message>
    <message>
        <source>Something between client and server rewrites the stream, or the server is not OpenAI-compatible; look at the excerpt.</source>
        <translation>客户端和服务器之间有东西改写了流，或者服务器并不兼容 OpenAI；请看摘录。</translation>
    </message>
    <message>
        <source>broken HTTP framing or encoding</source>
        <translation>HTTP 分块或编码已损坏</translation>
    </message>
    <message>
        <source>The reply&apos;s chunked framing or compression is broken: a proxy or the server mangles the response; try the server directly and check its log.</source>
        <translation>回复的分块传输或压缩已损坏：代理或服务器篡改了响应；请绕过代理直接访问服务器，并查看其日志。</translation>
    </message>
    <message>
        <source>impossible token counts in usage</source>
        <translation>usage 中的 token 数不可能成立</translation>
    </message>
    <message>
        <source>The server reported negative, fractional or absurd token counts, so no throughput can be computed from them; check the server or gateway version.</source>
        <translation>服务器报告的 token 数为负数、小数或大得离谱，无法据此计算吞吐量；请检查服务器或网关的版本。</translation>
    </message>
    <message>
        <source>reply larger than the limit</source>
        <translation>回复超过大小上限</translation>
    </message>
    <message>
        <source>The server sent far more than any reply needs (an endless line, a huge event, a body that inflates without end); check the URL points at the API and the server&apos;s health.</source>
        <translation>服务器发送的数据远超任何回复所需（没有尽头的一行、超大事件、无限膨胀的压缩体）；请确认 URL 指向的是 API，并检查服务器状态。</translation>
    </message>
    <message>
        <source>server sent an error inside the stream</source>
        <translation>服务器在流中发送了错误</translation>
    </message>
    <message>
        <source>Read the error the server sent; it often names the bad parameter or an overload.</source>
        <translation>阅读服务器发来的错误；它通常会指出出错的参数或过载情况。</translation>
    </message>
    <message>
        <source>no message carried choices</source>
        <translation>没有任何消息带有 choices</translation>
    </message>
    <message>
        <source>The reply had no choices: usually a chat model called on /v1/completions or the other way round; match --backend (openai-chat / openai) to the endpoint.</source>
        <translation>回复中没有 choices：通常是在 /v1/completions 上调用了 chat 模型，或者反过来；让 --backend（openai-chat / openai）与端点一致。</translation>
    </message>
    <message>
        <source>cancelled by the user</source>
        <translation>已被用户取消</translation>
    </message>
    <message>
        <source>The run was stopped before this request finished; nothing to fix.</source>
        <translation>这个请求完成前运行已被停止；无需修复。</translation>
    </message>
    <message>
        <source>unexpected client-side error</source>
        <translation>意外的客户端错误</translation>
    </message>
    <message>
        <source>This is a bug in TPOT Bench or an unusual server reply; please report the message.</source>
        <translation>这是 TPOT Bench 的缺陷或服务器的异常应答；请报告这条信息。</translation>
    </message>
    <message>
        <source>vLLM (V1 metric names)</source>
        <translation>vLLM（V1 指标名）</translation>
    </message>
    <message>
        <source>vLLM (legacy V0 metric names)</source>
        <translation>vLLM（旧版 V0 指标名）</translation>
    </message>
    <message>
        <source>SGLang</source>
        <translation>SGLang</translation>
    </message>
    <message>
        <source>llama.cpp server</source>
        <translation>llama.cpp 服务器</translation>
    </message>
    <message>
        <source>Text Generation Inference</source>
        <translation>Text Generation Inference</translation>
    </message>
    <message>
        <source>unrecognised Prometheus exporter</source>
        <translation>未识别的 Prometheus 导出端</translation>
    </message>
    <message>
        <source>space</source>
        <translation>空格</translation>
    </message>
    <message>
        <source>tab</source>
        <translation>制表符</translation>
    </message>
    <message>
        <source>newline</source>
        <translation>换行符</translation>
    </message>
    <message>
        <source>carriage return</source>
        <translation>回车符</translation>
    </message>
    <message>
        <source>whitespace character</source>
        <translation>空白字符</translation>
    </message>
    <message>
        <source>from the profile</source>
        <translation>来自端点配置</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Enter one of the served ids in the endpoint&apos;s Model field (List models fills it in); vLLM serves the name given by its --served-model-name.</source>
        <translation>在端点的“模型”栏中填写服务器提供的某个模型 ID（“列出模型”可自动填入）；vLLM 提供的是其 --served-model-name 指定的名称。</translation>
    </message>
    <message>
        <source>Enter {model} in the endpoint&apos;s Model field so requests and results name the model.</source>
        <translation>在端点的“模型”栏中填写 {model}，让请求和结果都写明模型。</translation>
    </message>
    <message>
        <source>This URL serves the other API: change the endpoint&apos;s API field (it is set to {api}), or give a Base URL that serves {api}; the API field and the URL must match.</source>
        <translation>这个 URL 提供的是另一种 API：请修改端点的“API”栏（当前为 {api}），或者填写一个提供 {api} 的基础 URL；“API”栏与 URL 必须一致。</translation>
    </message>
    <message>
        <source>Fix the path first (next check), then press Check connection again.</source>
        <translation>先修正路径（下一项检查），然后再点一次“检查连接”。</translation>
    </message>
    <message>
        <source>Enter the key in the endpoint&apos;s API key field; local vLLM needs none, a gateway does.</source>
        <translation>在端点的“API 密钥”栏中填写密钥；本地 vLLM 不需要密钥，网关需要。</translation>
    </message>
    <message>
        <source>Write the endpoint&apos;s Base URL as {root}: TPOT Bench repaired it, but vllm bench serve and other clients would get 404.</source>
        <translation>把端点的基础 URL 写成 {root}：TPOT Bench 已自动修正，但 vllm bench serve 和其他客户端会得到 404。</translation>
    </message>
    <message>
        <source>Enter the server root {root} as the endpoint&apos;s Base URL and choose the API in the API field: clients add the API&apos;s path to the base URL themselves.</source>
        <translation>把服务器根地址 {root} 填为端点的基础 URL，并在“API”栏中选择接口：客户端会自行在基础 URL 后加上接口路径。</translation>
    </message>
    <message>
        <source>Set the endpoint&apos;s Base URL to {base} (requests then go to {candidate}).</source>
        <translation>把端点的基础 URL 设为 {base}（请求随后发往 {candidate}）。</translation>
    </message>
    <message>
        <source>Remove the stray characters from the endpoint&apos;s API key field, then Save.</source>
        <translation>删除端点“API 密钥”栏中多余的字符，然后保存。</translation>
    </message>
    <message>
        <source>Set the endpoint&apos;s API field to {other}; chat and completions are separate endpoints and a server may serve only one.</source>
        <translation>把端点的“API”栏设为 {other}；对话与补全是两个不同的接口，服务器可能只提供其中一个。</translation>
    </message>
    <message>
        <source>The server or network is too slow or stalled; check that it is not overloaded, or raise the Request time-out in the Sweep tab&apos;s advanced settings.</source>
        <translation>服务器或网络太慢或已停滞；请检查它是否过载，或在“扫描”页的高级设置中调大“请求超时”。</translation>
    </message>
    <message>
        <source>Send a valid key: enter it in the endpoint&apos;s API key field without stray spaces; local vLLM needs none.</source>
        <translation>发送有效的密钥：在端点的“API 密钥”栏中填写，不要带多余的空格；本地 vLLM 不需要密钥。</translation>
    </message>
    <message>
        <source>The server or gateway is throttling: lower the Sweep tab&apos;s request rates or concurrencies, or raise the key&apos;s rate limit.</source>
        <translation>服务器或网关正在限流：请降低“扫描”页中的请求速率或并发数，或提高该密钥的速率上限。</translation>
    </message>
    <message>
        <source>The reply had no choices: usually a chat model called on /v1/completions or the other way round; set the endpoint&apos;s API field to match the URL.</source>
        <translation>回复中没有 choices：通常是在 /v1/completions 上调用了对话模型，或者反过来；请把端点的“API”栏设为与 URL 一致。</translation>
    </message>
    <message>
        <source>did not finish within {s:g} s (the Request time-out in the Sweep tab&apos;s advanced settings)</source>
        <translation>未在 {s:g} 秒内完成（扫描页高级设置中的“请求超时”）</translation>
    </message>
    <message>
        <source>stalled: nothing arrived for {s:g} s</source>
        <translation>停滞：{s:g} 秒内没有收到任何数据</translation>
    </message>
    <message>
        <source>enter it in the endpoint&apos;s API key field</source>
        <translation>请在端点的“API 密钥”栏中填写</translation>
    </message>
    <message>
        <source>or open the Doctor tab and press Check connection</source>
        <translation>或打开“诊断”页并点击“检查连接”</translation>
    </message>
</context>
<context>
    <name>DoctorPanel</name>
    <message>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>checking</source>
        <translation>检查中</translation>
    </message>
    <message>
        <source>Does the host answer at all: DNS, connection, TLS, time-out.</source>
        <translation>主机是否有响应：DNS、连接、TLS、超时。</translation>
    </message>
    <message>
        <source>Is the API key sent and accepted (401/403 means no).</source>
        <translation>API 密钥是否已发送并被接受（401/403 表示没有）。</translation>
    </message>
    <message>
        <source>Is the URL right: with or without /v1, /api versus /api/v1 (404/405).</source>
        <translation>URL 是否正确：带不带 /v1，/api 还是 /api/v1（404/405）。</translation>
    </message>
    <message>
        <source>Does the server serve the model id you entered.</source>
        <translation>服务器是否提供你填写的模型 ID。</translation>
    </message>
    <message>
        <source>Does a reply contain &apos;choices&apos; (chat versus completions endpoint).</source>
        <translation>回复中是否有 &apos;choices&apos;（对话接口还是补全接口）。</translation>
    </message>
    <message>
        <source>Do tokens stream as SSE chunks, end with [DONE] and report usage.</source>
        <translation>token 是否以 SSE 分块流式返回、以 [DONE] 结束并报告 usage。</translation>
    </message>
    <message>
        <source>Is /metrics readable: which server it is and its KV-cache size.</source>
        <translation>/metrics 是否可读：是哪种服务器，KV 缓存有多大。</translation>
    </message>
    <message>
        <source>Check connection</source>
        <translation>检查连接</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <source>Checks the endpoint in the order the field guide advises: reachable, key, path, model, response body, streaming, server metrics.</source>
        <translation>按实战指南建议的顺序检查端点：服务可达、密钥、路径、模型、返回体、流式输出、服务器指标。</translation>
    </message>
    <message>
        <source>Server reachable</source>
        <translation>服务可达</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>URL path</source>
        <translation>URL 路径</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Response body</source>
        <translation>返回体</translation>
    </message>
    <message>
        <source>Streaming</source>
        <translation>流式输出</translation>
    </message>
    <message>
        <source>Server metrics</source>
        <translation>服务器指标</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Checking {0} …</source>
        <translation>正在检查 {0} …</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Check cancelled.</source>
        <translation>检查已取消。</translation>
    </message>
    <message>
        <source>Cannot check this endpoint: {0}</source>
        <translation>无法检查此端点：{0}</translation>
    </message>
    <message>
        <source>Fix:</source>
        <translation>解决办法：</translation>
    </message>
    <message>
        <source>{0} check(s) failed; start with the first one.</source>
        <translation>{0} 项检查未通过；请从第一项开始处理。</translation>
    </message>
    <message>
        <source>Works, with {0} warning(s).</source>
        <translation>可以使用，但有 {0} 条警告。</translation>
    </message>
    <message>
        <source>All checks passed.</source>
        <translation>全部检查通过。</translation>
    </message>
</context>
<context>
    <name>EndpointEditor</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Built-in simulator</source>
        <translation>内置模拟器</translation>
    </message>
    <message>
        <source>Header line {number}: use letters, digits and &apos;-&apos; in the name and plain ASCII without control characters in the value.</source>
        <translation>请求头第 {number} 行：名称只能用字母、数字和“-”，值必须是不含控制字符的纯 ASCII。</translation>
    </message>
    <message>
        <source>Unsaved changes: Run uses them as shown; Save keeps them, Revert drops them.</source>
        <translation>有未保存的修改：运行时按当前显示的内容使用；“保存”会保留修改，“还原”会放弃修改。</translation>
    </message>
    <message>
        <source>Enter the endpoint&apos;s Base URL.</source>
        <translation>请填写端点的基础 URL。</translation>
    </message>
    <message>
        <source>The API key contains a line break or another control character; remove it and save again.</source>
        <translation>API 密钥中含有换行符或其他控制字符；请删除后再保存。</translation>
    </message>
    <message>
        <source>Saved. The key is kept for this session only.</source>
        <translation>已保存。密钥仅在本次会话中保留。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>New endpoint</source>
        <translation>新端点</translation>
    </message>
    <message>
        <source>Deleted {name} and its key.</source>
        <translation>已删除 {name} 及其密钥。</translation>
    </message>
    <message>
        <source>Keys are stored in the OS keyring: {backend}</source>
        <translation>密钥保存在系统密钥环中：{backend}</translation>
    </message>
    <message>
        <source>No secure keyring is available: keys are kept in memory for this session only.</source>
        <translation>没有可用的安全密钥环：密钥仅在本次会话的内存中保留。</translation>
    </message>
</context>
<context>
    <name>EndpointForm</name>
    <message>
        <source>Chat completions</source>
        <translation>Chat Completions（对话）</translation>
    </message>
    <message>
        <source>Completions</source>
        <translation>Completions（补全）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Verify TLS certificates</source>
        <translation>验证 TLS 证书</translation>
    </message>
    <message>
        <source>Name: value (one per line)</source>
        <translation>名称: 值（每行一个）</translation>
    </message>
    <message>
        <source>none: load from this machine</source>
        <translation>无：从本机发压</translation>
    </message>
    <message>
        <source>Run the sweep&apos;s load workers as Ray actors on this cluster: &apos;auto&apos; joins the cluster this machine belongs to, or give the head&apos;s address (host:port). Needs Ray installed (pip install &apos;tpotbench[distributed]&apos;).</source>
        <translation>把扫描的负载进程作为 Ray actor 跑在这个集群上：填 auto 表示加入本机所在的集群，或填头节点地址（host:port）。需要安装 Ray（pip install &apos;tpotbench[distributed]&apos;）。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>Ray cluster</source>
        <translation>Ray 集群</translation>
    </message>
    <message>
        <source>The built-in simulator listens on a free loopback port chosen at start-up.</source>
        <translation>内置模拟器在启动时选定的空闲本地回环端口上监听。</translation>
    </message>
    <message>
        <source>The key would be sent unencrypted: {host} is reached over plain http://. Use https:// unless every network on the way is yours.</source>
        <translation>密钥将以明文发送：{host} 通过未加密的 http:// 访问。除非途经的网络都在你的掌控之中，否则请使用 https://。</translation>
    </message>
    <message>
        <source>Asking the endpoint for its models…</source>
        <translation>正在向端点查询模型…</translation>
    </message>
    <message>
        <source>{n} model(s) found.</source>
        <translation>找到 {n} 个模型。</translation>
    </message>
</context>
<context>
    <name>EngineErrors</name>
    <message>
        <source>HTTP {status} from {url}: the server wants an API key and none was sent; enter it in the endpoint&apos;s API key field</source>
        <translation>{url} 返回 HTTP {status}：服务器需要 API 密钥，但没有发送；请在端点的“API 密钥”栏中填写</translation>
    </message>
    <message>
        <source>HTTP {status} from {url}: the server rejected the API key (a key for another endpoint, mistyped, or expired); check the key, or open the Doctor tab and press Check connection</source>
        <translation>{url} 返回 HTTP {status}：服务器拒绝了 API 密钥（属于其他端点、输入有误或已过期）；请检查密钥，或打开“诊断”标签页并点击“检查连接”</translation>
    </message>
    <message>
        <source>cannot reach {url}: no complete answer within {limit} (the Request time-out in the Sweep tab&apos;s advanced settings)</source>
        <translation>无法连接 {url}：{limit} 内没有完整应答（见“扫描”标签页高级设置中的“请求超时”）</translation>
    </message>
    <message>
        <source>cannot reach {url} ({kind}: {detail})</source>
        <translation>无法连接 {url}（{kind}：{detail}）</translation>
    </message>
    <message>
        <source>{problem}; the sweep stopped after {saved} of {planned} point(s), those are kept</source>
        <translation>{problem}；扫描在 {planned} 个测试点中完成 {saved} 个后停止，已完成的均已保留</translation>
    </message>
    <message>
        <source>cannot write {path} ({reason}); it lists only the points before this one</source>
        <translation>无法写入 {path}（{reason}）；其中只列出此前的测试点</translation>
    </message>
    <message>
        <source>cannot write {path} ({reason}); the old one is removed as out of date</source>
        <translation>无法写入 {path}（{reason}）；旧文件已过期，已删除</translation>
    </message>
    <message>
        <source>cannot write {path}: {reason}</source>
        <translation>无法写入 {path}：{reason}</translation>
    </message>
    <message>
        <source>cannot write in the results folder {folder} ({reason})</source>
        <translation>无法写入结果文件夹 {folder}（{reason}）</translation>
    </message>
    <message>
        <source>{folder}: no free file name for {base}</source>
        <translation>{folder}：没有可用于 {base} 的空闲文件名</translation>
    </message>
    <message>
        <source>cannot start a load worker process: {reason}</source>
        <translation>无法启动压测工作进程：{reason}</translation>
    </message>
    <message>
        <source>load worker {n} failed to start: {reason}</source>
        <translation>压测工作进程 {n} 启动失败：{reason}</translation>
    </message>
    <message>
        <source>only {ready} of {count} load workers were ready after {s} s; check the workers&apos; machines can reach the endpoint</source>
        <translation>{s} 秒后 {count} 个压测工作进程中只有 {ready} 个就绪；请检查工作进程所在机器能否访问端点</translation>
    </message>
    <message>
        <source>The sweep failed.</source>
        <translation>扫描失败。</translation>
    </message>
    <message>
        <source>cannot connect: {os}</source>
        <translation>无法建立连接：{os}</translation>
    </message>
    <message>
        <source>host name not found: {os}</source>
        <translation>找不到主机名：{os}</translation>
    </message>
    <message>
        <source>TLS failed: {os}</source>
        <translation>TLS 握手失败：{os}</translation>
    </message>
    <message>
        <source>cannot use this URL: {os}</source>
        <translation>无法使用此 URL：{os}</translation>
    </message>
    <message>
        <source>No space left on device</source>
        <translation>磁盘空间已满</translation>
    </message>
    <message>
        <source>Read-only file system</source>
        <translation>只读文件系统</translation>
    </message>
    <message>
        <source>Permission denied</source>
        <translation>没有权限</translation>
    </message>
    <message>
        <source>Is a directory</source>
        <translation>是一个文件夹</translation>
    </message>
    <message>
        <source>Not a directory</source>
        <translation>不是文件夹</translation>
    </message>
    <message>
        <source>File exists</source>
        <translation>文件已存在</translation>
    </message>
    <message>
        <source>No such file or directory</source>
        <translation>文件或文件夹不存在</translation>
    </message>
    <message>
        <source>Disk quota exceeded</source>
        <translation>超出磁盘配额</translation>
    </message>
    <message>
        <source>Input/output error</source>
        <translation>输入/输出错误</translation>
    </message>
    <message>
        <source>not a regular file (a folder, FIFO or device); name a file</source>
        <translation>不是普通文件（是文件夹、FIFO 或设备）；请指定一个文件</translation>
    </message>
    <message>
        <source>connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>connection refused (nothing listens)</source>
        <translation>连接被拒绝（该端口无服务监听）</translation>
    </message>
    <message>
        <source>connection reset by the server</source>
        <translation>连接被服务器重置</translation>
    </message>
    <message>
        <source>no route to the host</source>
        <translation>无法路由到该主机</translation>
    </message>
    <message>
        <source>network unreachable</source>
        <translation>网络不可达</translation>
    </message>
    <message>
        <source>connection timed out</source>
        <translation>连接超时</translation>
    </message>
</context>
<context>
    <name>Exports</name>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Markdown table (*.md)</source>
        <translation>Markdown 表格 (*.md)</translation>
    </message>
    <message>
        <source>PNG (*.png)</source>
        <translation>PNG (*.png)</translation>
    </message>
    <message>
        <source>SVG (*.svg)</source>
        <translation>SVG (*.svg)</translation>
    </message>
    <message>
        <source>{0} is not a regular file (a folder, FIFO or device): choose a file name.</source>
        <translation>{0} 不是普通文件（是文件夹、FIFO 或设备）：请另选一个文件名。</translation>
    </message>
</context>
<context>
    <name>LiveCharts</name>
    <message>
        <source>Inter-token latency, every token (all streams)</source>
        <translation>逐 token 间隔延迟（ITL，全部流）</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL（毫秒）</translation>
    </message>
    <message>
        <source>time (s)</source>
        <translation>时间（秒）</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Output tok/s</source>
        <translation>输出 token/秒</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>Rolling TPOT: P50 and P99 of the last {0} finished requests. The dashed line is the roofline floor for the batch the server runs now.</source>
        <translation>滚动 TPOT：最近 {0} 个已完成请求的 P50 与 P99。虚线是服务器当前批大小下的屋顶线下限。</translation>
    </message>
    <message>
        <source>Output tokens per second of the requests completed so far in this point.</source>
        <translation>本测试点中已完成请求的每秒输出 token 数。</translation>
    </message>
    <message>
        <source>Requests sent and not yet finished.</source>
        <translation>已发出但尚未完成的请求。</translation>
    </message>
    <message>
        <source>{0} gap(s) under {1:g} ms (tokens read together) sit on the bottom edge</source>
        <translation>{0} 个小于 {1:g} 毫秒的间隔（一次读到的多个 token）画在底边上</translation>
    </message>
    <message>
        <source>floor</source>
        <translation>下限</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Doctor</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline 屋顶线</translation>
    </message>
    <message>
        <source>Server metrics</source>
        <translation>服务器指标</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>Export &amp;report…</source>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>Check this &amp;machine…</source>
        <translation>检查本机(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About TPOT Bench</source>
        <translation>关于 TPOT Bench(&amp;A)</translation>
    </message>
    <message>
        <source>The built-in simulator did not start: {error}</source>
        <translation>内置模拟器未能启动：{error}</translation>
    </message>
    <message>
        <source>Cancel the sweep?</source>
        <translation>取消扫描？</translation>
    </message>
    <message>
        <source>Stop the running sweep? Requests in flight get a moment to finish; points already finished stay on disk, the interrupted one is saved as partial.</source>
        <translation>停止正在运行的扫描？进行中的请求会有片刻时间完成；已完成的测量点保留在磁盘上，被中断的测量点保存为部分结果。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Stop the running measurement first, then switch.</source>
        <translation>请先停止正在进行的测量，再切换语言。</translation>
    </message>
    <message>
        <source>About TPOT Bench</source>
        <translation>关于 TPOT Bench</translation>
    </message>
    <message>
        <source>&lt;h3&gt;TPOT Bench {version}&lt;/h3&gt;&lt;p&gt;Measures TTFT, TPOT, ITL and throughput of OpenAI-compatible LLM endpoints and explains them with a roofline.&lt;/p&gt;&lt;p&gt;Qt {qt} · PySide6 {pyside} · Python {python} ({platform})&lt;br&gt;Keyring backend: {backend}&lt;br&gt;Log file: {log}&lt;/p&gt;</source>
        <translation>&lt;h3&gt;TPOT Bench {version}&lt;/h3&gt;&lt;p&gt;测量 OpenAI 兼容 LLM 端点的 TTFT、TPOT、ITL 与吞吐量，并用 Roofline 屋顶线模型加以解释。&lt;/p&gt;&lt;p&gt;Qt {qt} · PySide6 {pyside} · Python {python}（{platform}）&lt;br&gt;密钥环后端：{backend}&lt;br&gt;日志文件：{log}&lt;/p&gt;</translation>
    </message>
    <message>
        <source>none (session only)</source>
        <translation>无（仅本次会话）</translation>
    </message>
</context>
<context>
    <name>Metrics</name>
    <message>
        <source>Rate (req/s)</source>
        <translation>速率（请求/秒）</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Req/s</source>
        <translation>请求/秒</translation>
    </message>
    <message>
        <source>Output tok/s</source>
        <translation>输出 token/秒</translation>
    </message>
    <message>
        <source>TTFT P50 (ms)</source>
        <translation>TTFT P50（毫秒）</translation>
    </message>
    <message>
        <source>TTFT P99 (ms)</source>
        <translation>TTFT P99（毫秒）</translation>
    </message>
    <message>
        <source>TPOT P50 (ms)</source>
        <translation>TPOT P50（毫秒）</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>TPOT P99 (ms)</source>
        <translation>TPOT P99（毫秒）</translation>
    </message>
    <message>
        <source>ITL P99 (ms)</source>
        <translation>ITL P99（毫秒）</translation>
    </message>
    <message>
        <source>E2EL P50 (ms)</source>
        <translation>E2EL P50（毫秒）</translation>
    </message>
    <message>
        <source>Duration (s)</source>
        <translation>时长（秒）</translation>
    </message>
    <message>
        <source>Floor (ms)</source>
        <translation>下限（毫秒）</translation>
    </message>
    <message>
        <source>MBU</source>
        <translation>MBU</translation>
    </message>
    <message>
        <source>Goodput (req/s)</source>
        <translation>有效吞吐（请求/秒）</translation>
    </message>
    <message>
        <source>TTFT 1st turn (ms)</source>
        <translation>首轮 TTFT（毫秒）</translation>
    </message>
    <message>
        <source>TTFT later turns (ms)</source>
        <translation>后续轮 TTFT（毫秒）</translation>
    </message>
    <message>
        <source>TTFO (ms)</source>
        <translation>TTFO（毫秒）</translation>
    </message>
    <message>
        <source>TPOT answer (ms)</source>
        <translation>回答阶段 TPOT（毫秒）</translation>
    </message>
    <message>
        <source>Reasoning tokens</source>
        <translation>推理 token 数</translation>
    </message>
    <message>
        <source>Cache hits, usage</source>
        <translation>缓存命中率（usage）</translation>
    </message>
    <message>
        <source>Cache hits, /metrics</source>
        <translation>缓存命中率（/metrics）</translation>
    </message>
    <message>
        <source>Spec. acceptance</source>
        <translation>投机接受率</translation>
    </message>
    <message>
        <source>Acceptance length</source>
        <translation>平均接受长度</translation>
    </message>
    <message>
        <source>Send lateness P99 (ms)</source>
        <translation>发送延迟 P99（毫秒）</translation>
    </message>
    <message>
        <source>Time to first token: from sending the request to the first streamed message with generated content. GuideLLM: time_to_first_token_ms; AIPerf: Time to First Token.</source>
        <translation>首 token 延迟（TTFT）：从发出请求到收到第一条带生成内容的流式消息。GuideLLM 称 time_to_first_token_ms；AIPerf 称 Time to First Token。</translation>
    </message>
    <message>
        <source>Time per output token, excluding the first: (E2EL − TTFT) / (output tokens − 1) per request, output tokens from the server&apos;s usage. GuideLLM: inter_token_latency_ms; AIPerf: Inter Token Latency (note: their &apos;ITL&apos; is this TPOT).</source>
        <translation>每输出 token 时间（不含首 token，TPOT）：每个请求的 (E2EL − TTFT) / (输出 token 数 − 1)，输出 token 数取自服务器返回的 usage。GuideLLM 称 inter_token_latency_ms；AIPerf 称 Inter Token Latency（注意：它们的 “ITL” 就是这里的 TPOT）。</translation>
    </message>
    <message>
        <source>Inter-token latency: each gap between successive streamed chunks, pooled over all requests (a chunk with several tokens is one gap). AIPerf: Inter Chunk Latency; GuideLLM has no per-chunk equivalent.</source>
        <translation>token 间隔延迟（ITL）：相邻两个流式数据块之间的每一个间隔，汇总所有请求（一个块含多个 token 时算一个间隔）。AIPerf 称 Inter Chunk Latency；GuideLLM 没有逐块的对应指标。</translation>
    </message>
    <message>
        <source>End-to-end latency: from sending the request to its last streamed chunk. GuideLLM: request_latency; AIPerf: Request Latency.</source>
        <translation>端到端延迟（E2EL）：从发出请求到收到最后一个流式数据块。GuideLLM 称 request_latency；AIPerf 称 Request Latency。</translation>
    </message>
    <message>
        <source>Target request rate (Poisson arrivals); inf sends every request at once, limited only by the concurrency.</source>
        <translation>目标请求速率（泊松到达）；inf 表示一次性发出全部请求，只受并发数限制。</translation>
    </message>
    <message>
        <source>Most requests in flight at once. GuideLLM: concurrent rate; AIPerf: --concurrency.</source>
        <translation>同时进行的最大请求数。GuideLLM 称 concurrent rate；AIPerf 称 --concurrency。</translation>
    </message>
    <message>
        <source>Requests that finished successfully.</source>
        <translation>成功完成的请求数。</translation>
    </message>
    <message>
        <source>Requests that failed, grouped by kind in the result file.</source>
        <translation>失败的请求数，结果文件中按类型分组。</translation>
    </message>
    <message>
        <source>Completed requests per second over the point&apos;s duration. GuideLLM: requests_per_second; AIPerf: Request Throughput.</source>
        <translation>该测试点持续时间内每秒完成的请求数。GuideLLM 称 requests_per_second；AIPerf 称 Request Throughput。</translation>
    </message>
    <message>
        <source>Generated tokens per second over the point&apos;s duration (tokens from usage). GuideLLM: output_tokens_per_second; AIPerf: Output Token Throughput.</source>
        <translation>该测试点持续时间内每秒生成的 token 数（token 数取自 usage）。GuideLLM 称 output_tokens_per_second；AIPerf 称 Output Token Throughput。</translation>
    </message>
    <message>
        <source>From the first request sent to the last one completed, in seconds.</source>
        <translation>从发出第一个请求到最后一个请求完成，单位秒。</translation>
    </message>
    <message>
        <source>Roofline floor: the fastest TPOT the chosen GPU allows at this point&apos;s batch = max(bytes read per decode step / memory bandwidth, FLOPs / peak). The batch is the server&apos;s mean running requests when scraped, else the concurrency (or the mean requests in flight at a fixed rate). Empty when the run chose no GPU.</source>
        <translation>屋顶线下限：所选 GPU 在该测试点批大小下允许的最快 TPOT = max(每个解码步读取的字节数 / 显存带宽, FLOPs / 峰值算力)。批大小取抓取到的服务器平均运行请求数，否则取并发数（固定速率时取平均在途请求数）。未选择 GPU 时为空。</translation>
    </message>
    <message>
        <source>Memory-bandwidth utilisation: bytes per decode step / TPOT P50 / the GPU&apos;s bandwidth. 100 % would mean the TPOT sits on the floor.</source>
        <translation>显存带宽利用率：每个解码步的字节数 / TPOT P50 / GPU 带宽。100 % 表示 TPOT 正好在下限上。</translation>
    </message>
    <message>
        <source>Conversations: mean TTFT of each session&apos;s first turn (no history to reuse). AIPerf and vLLM&apos;s multi-turn benchmark report TTFT over all turns.</source>
        <translation>多轮对话：每个会话第一轮的平均 TTFT（没有可复用的历史）。AIPerf 和 vLLM 的多轮基准报告的是所有轮次合在一起的 TTFT。</translation>
    </message>
    <message>
        <source>Conversations: mean TTFT of the turns after the first, which resend the whole history; with prefix caching the server skips the history&apos;s prefill.</source>
        <translation>多轮对话：第一轮之后各轮的平均 TTFT。这些轮次会重新发送完整历史；开启前缀缓存时，服务器可跳过历史部分的预填充。</translation>
    </message>
    <message>
        <source>Reasoning models: mean time to first output token, the first visible answer token after the reasoning. TTFT counts the first token of any kind (vLLM). GuideLLM: time to first output token; AIPerf: TTFO.</source>
        <translation>推理模型：首个输出 token 的平均时间，即推理结束后第一个可见回答 token。TTFT 计的是任意类型的第一个 token（vLLM 的定义）。GuideLLM：time to first output token；AIPerf：TTFO。</translation>
    </message>
    <message>
        <source>Reasoning models: mean TPOT of the answer phase alone, after the reasoning ends. The TPOT columns cover the whole reply.</source>
        <translation>推理模型：推理结束后仅回答阶段的平均 TPOT。TPOT 各列统计的是整个回复。</translation>
    </message>
    <message>
        <source>Reasoning models: mean reasoning tokens per request, from the server&apos;s usage (completion_tokens_details.reasoning_tokens), else counted from reasoning deltas.</source>
        <translation>推理模型：每个请求的平均推理 token 数，取自服务器的 usage（completion_tokens_details.reasoning_tokens），没有时按推理增量计数。</translation>
    </message>
    <message>
        <source>Prefix cache hit rate as the replies report it: cached prompt tokens (usage.prompt_tokens_details.cached_tokens) / prompt tokens.</source>
        <translation>回复中报告的前缀缓存命中率：已缓存的提示 token（usage.prompt_tokens_details.cached_tokens）/ 提示 token。</translation>
    </message>
    <message>
        <source>Prefix cache hit rate as the server&apos;s /metrics counts it over the point: prefix-cache hits / queries (vLLM&apos;s counters), every client included.</source>
        <translation>服务器 /metrics 在该测试点期间统计的前缀缓存命中率：前缀缓存命中数 / 查询数（vLLM 的计数器），包含所有客户端。</translation>
    </message>
    <message>
        <source>Speculative decoding: accepted draft tokens / drafted tokens over the point, from vLLM&apos;s spec-decode counters in /metrics.</source>
        <translation>投机解码：该测试点内被接受的草稿 token / 草稿 token 总数，取自 /metrics 中 vLLM 的投机解码计数器。</translation>
    </message>
    <message>
        <source>Trace replay: P99 of how late each request went out against the trace&apos;s schedule (sped up by --trace-speedup). Large values mean the client, not the server, set the pace.</source>
        <translation>轨迹回放：每个请求实际发出时间相对轨迹时间表（按 --trace-speedup 加速）的滞后量的 P99。数值大说明节奏是由客户端而不是服务器决定的。</translation>
    </message>
    <message>
        <source>Speculative decoding: mean tokens produced per decode step (1 + accepted drafts), from vLLM&apos;s spec-decode counters in /metrics.</source>
        <translation>投机解码：每个解码步平均产出的 token 数（1 + 被接受的草稿数），取自 /metrics 中 vLLM 的投机解码计数器。</translation>
    </message>
</context>
<context>
    <name>ModelField</name>
    <message>
        <source>model id</source>
        <translation>模型 ID</translation>
    </message>
    <message>
        <source>List models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>Ask the endpoint&apos;s /v1/models which models it serves</source>
        <translation>向端点的 /v1/models 查询其提供的模型</translation>
    </message>
</context>
<context>
    <name>PanelLinks</name>
    <message>
        <source>sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>batch {0:g} (/metrics)</source>
        <translation>批次 {0:g}（/metrics）</translation>
    </message>
    <message>
        <source>concurrency {0} (no /metrics)</source>
        <translation>并发数 {0}（无 /metrics）</translation>
    </message>
    <message>
        <source>live sweep, batch {0:g}</source>
        <translation>实时扫描，批次 {0:g}</translation>
    </message>
</context>
<context>
    <name>ParetoPlot</name>
    <message>
        <source>hardware — {gpu} ×{n}, {fmt}</source>
        <translation>硬件 — {gpu} ×{n}，{fmt}</translation>
    </message>
    <message>
        <source>Interactivity vs throughput (Pareto)</source>
        <translation>交互性与吞吐（帕累托）</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>frontier</source>
        <translation>前沿</translation>
    </message>
    <message>
        <source>hardware ×{n}</source>
        <translation>硬件 ×{n}</translation>
    </message>
    <message>
        <source>tok/s per GPU</source>
        <translation>每 GPU tok/s</translation>
    </message>
    <message>
        <source>tok/s per user (1000 / TPOT P50)</source>
        <translation>每用户 tok/s（1000 / TPOT P50）</translation>
    </message>
    <message>
        <source>One point per load: x = 1000 / TPOT P50 (a user&apos;s decode rate, TTFT excluded), y = output tokens/s ÷ GPUs (tensor parallel). The dashed curve is what the roofline allows: at batch b, 1 / floor(b) per user and b / floor(b) per GPU; a dotted line joins each load to the hardware at its batch.</source>
        <translation>每个负载一个点：x = 1000 / TPOT P50（单个用户的解码速率，不含 TTFT），y = 输出 tokens/s ÷ GPU 数（张量并行）。虚线是屋顶线允许的上限：批大小为 b 时，每用户 1 / floor(b)，每 GPU b / floor(b)；点线把每个负载连到同一批大小下的硬件上限。</translation>
    </message>
    <message>
        <source>{name} ×{n}</source>
        <translation>{name} ×{n}</translation>
    </message>
    <message>
        <source>, </source>
        <comment>between the names of points at the same place</comment>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>PointStatus</name>
    <message>
        <source>early-stopped after {0} of {1}</source>
        <translation>提前停止：{1} 个请求完成了 {0} 个</translation>
    </message>
    <message>
        <source>cancelled after {0} of {1}</source>
        <translation>已取消：{1} 个请求完成了 {0} 个</translation>
    </message>
    <message>
        <source>partial: {0} of {1} ran</source>
        <translation>不完整：{1} 个请求只运行了 {0} 个</translation>
    </message>
    <message>
        <source>Concurrency {target} was never reached: only {prompts} prompts for {target} streams, so at most {peak} requests were in flight; these are figures for a lower concurrency.</source>
        <translation>从未达到并发 {target}：{target} 路并发只有 {prompts} 个请求，同时在途的请求最多 {peak} 个；这些数值对应的是更低的并发。</translation>
    </message>
    <message>
        <source>Concurrency {target} was never reached: at most {peak} requests were in flight (limit {limit}); these are figures for a lower concurrency.</source>
        <translation>从未达到并发 {target}：同时在途的请求最多 {peak} 个（下限 {limit}）；这些数值对应的是更低的并发。</translation>
    </message>
    <message>
        <source>Arrivals fell behind their schedule: {late} of {count} sends were late, p99 {p99_s:.2f} s (limit {limit_s:.2f} s), held by the concurrency cap of {cap} (all slots busy); the server did not see the planned arrivals.</source>
        <translation>请求到达落后于计划：{count} 次发送中有 {late} 次迟到，P99 {p99_s:.2f} 秒（上限 {limit_s:.2f} 秒），原因是并发上限 {cap} 已占满；服务端没有收到计划中的到达过程。</translation>
    </message>
    <message>
        <source>Arrivals fell behind their schedule: {late} of {count} sends were late, p99 {p99_s:.2f} s (limit {limit_s:.2f} s); the client sent late, so the server did not see the planned arrivals.</source>
        <translation>请求到达落后于计划：{count} 次发送中有 {late} 次迟到，P99 {p99_s:.2f} 秒（上限 {limit_s:.2f} 秒）；客户端发送延迟，服务端没有收到计划中的到达过程。</translation>
    </message>
    <message>
        <source>The client was saturated: it used {cpu:.0%} of a CPU core (limit {limit:.0%}); its send times and timestamps are at risk.</source>
        <translation>客户端已饱和：占用了 {cpu:.0%} 个 CPU 核（上限 {limit:.0%}）；其发送时间和时间戳不可靠。</translation>
    </message>
    <message>
        <source>The client was saturated: its event loop ran {lag:.0f} ms late (median, limit {limit:.0f} ms); its send times and timestamps are at risk.</source>
        <translation>客户端已饱和：事件循环延迟 {lag:.0f} 毫秒（中位数，上限 {limit:.0f} 毫秒）；其发送时间和时间戳不可靠。</translation>
    </message>
    <message>
        <source>⚠ concurrency {0} of {1}</source>
        <translation>⚠ 并发 {0}/{1}</translation>
    </message>
    <message>
        <source>⚠ sends late (p99 {0:.2f} s)</source>
        <translation>⚠ 发送迟到（P99 {0:.2f} 秒）</translation>
    </message>
    <message>
        <source>⚠ client saturated</source>
        <translation>⚠ 客户端饱和</translation>
    </message>
    <message>
        <source>Not a full measurement: {0}. Its figures cover only the requests that finished; it is drawn apart from the curves and left out of the knees.</source>
        <translation>不是完整的测量：{0}。其数值只包含已完成的请求；图中单独绘制，不连入曲线，也不参与拐点计算。</translation>
    </message>
</context>
<context>
    <name>PointsTable</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
</context>
<context>
    <name>ProbeChart</name>
    <message>
        <source>Inter-token latency (ms)</source>
        <translation>token 间时延（毫秒）</translation>
    </message>
    <message>
        <source>Time since request sent (s)</source>
        <translation>自请求发出起的时间（秒）</translation>
    </message>
    <message>
        <source>Run a probe: the gap before each token appears here.</source>
        <translation>运行一次探测：每个 token 之前的间隔会显示在这里。</translation>
    </message>
</context>
<context>
    <name>ProbeHistory</name>
    <message>
        <source>Earlier probes in this session; click one to show it</source>
        <translation>本次会话中较早的探测；点击查看</translation>
    </message>
    <message>
        <source>{when}  {profile}: failed ({kind})</source>
        <translation>{when}  {profile}：失败（{kind}）</translation>
    </message>
    <message>
        <source>{when}  {profile}: TTFT {ttft} ms · TPOT {tpot} ms · {n} tok</source>
        <translation>{when}  {profile}：TTFT {ttft} 毫秒 · TPOT {tpot} 毫秒 · {n} token</translation>
    </message>
</context>
<context>
    <name>ProbePanel</name>
    <message>
        <source>Output tokens per second for this request: output tokens ÷ end-to-end latency (vllm bench serve&apos;s output throughput for one request).
GuideLLM: output_tokens_per_second. AIPerf&apos;s Output Token Throughput Per User is 1 ÷ ITL instead (decode speed only, without TTFT).</source>
        <translation>本次请求每秒输出的 token 数：输出 token 数 ÷ 端到端时延（即 vllm bench serve 单个请求的输出吞吐量）。
GuideLLM：output_tokens_per_second。AIPerf 的 Output Token Throughput Per User 则是 1 ÷ ITL（只含解码速度，不含 TTFT）。</translation>
    </message>
    <message>
        <source>Output tokens as reported by the server&apos;s usage field (completion_tokens), never counted from stream chunks.
GuideLLM: output_tokens. AIPerf: Output Sequence Length (OSL).</source>
        <translation>输出 token 数取自服务器返回的 usage 字段（completion_tokens），绝不按流式数据块计数。
GuideLLM：output_tokens。AIPerf：Output Sequence Length (OSL)。</translation>
    </message>
    <message>
        <source>Enter a valid API key for this endpoint in the editor on the left.</source>
        <translation>请在左侧编辑器中为此端点填写有效的 API 密钥。</translation>
    </message>
    <message>
        <source>{title}: {detail}</source>
        <translation>{title}：{detail}</translation>
    </message>
    <message>
        <source>Cannot reach {url}. {problem}</source>
        <translation>无法连接 {url}。{problem}</translation>
    </message>
    <message>
        <source>The request&apos;s max_tokens</source>
        <translation>请求的 max_tokens</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Send one streaming request (Ctrl+R)</source>
        <translation>发送一个流式请求（Ctrl+R）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Cancel the request (Esc)</source>
        <translation>取消请求（Esc）</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <source>Explain in three sentences why LLM decoding is limited by memory bandwidth.</source>
        <translation>请用三句话解释：为什么大语言模型的解码速度受限于显存带宽？</translation>
    </message>
    <message>
        <source>Type a prompt first.</source>
        <translation>请先输入提示词。</translation>
    </message>
    <message>
        <source>The endpoint has no URL yet (the simulator is still starting).</source>
        <translation>该端点还没有 URL（模拟器仍在启动）。</translation>
    </message>
    <message>
        <source>Streaming from {url} …</source>
        <translation>正在从 {url} 流式接收…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>The probe ended without a result.</source>
        <translation>探测结束，但没有结果。</translation>
    </message>
    <message>
        <source> Token count estimated: the server sent no usage.</source>
        <translation> token 数为估算值：服务器未返回 usage。</translation>
    </message>
    <message>
        <source>Done: {n} tokens in {s:.2f} s.</source>
        <translation>完成：{s:.2f} 秒内 {n} 个 token。</translation>
    </message>
</context>
<context>
    <name>ProfileList</name>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>Custom endpoint</source>
        <translation>自定义端点</translation>
    </message>
    <message>
        <source>From preset: {name}</source>
        <translation>来自预设：{name}</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>{name} (no GPU needed)</source>
        <translation>{name}（无需 GPU）</translation>
    </message>
</context>
<context>
    <name>Readouts</name>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT（毫秒）</translation>
    </message>
    <message>
        <source>TPOT (ms)</source>
        <translation>TPOT（毫秒）</translation>
    </message>
    <message>
        <source>Output tok/s</source>
        <translation>输出 token/秒</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>输出 token 数</translation>
    </message>
</context>
<context>
    <name>ReportExport</name>
    <message>
        <source>Nothing to report yet: open a run in the Results tab, or run a sweep.</source>
        <translation>还没有可生成报告的内容：请先在“结果”页打开一次运行，或运行一次扫描。</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>HTML report (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <source>Could not write the report to {0}: {1}</source>
        <translation>无法将报告写入 {0}：{1}</translation>
    </message>
    <message>
        <source>Report of {0} point(s) written to {1}.</source>
        <translation>已将 {0} 个测试点的报告写入 {1}。</translation>
    </message>
</context>
<context>
    <name>ResultsPanel</name>
    <message>
        <source>{0}: cannot list ({1})</source>
        <translation>{0}：无法列出内容（{1}）</translation>
    </message>
    <message>
        <source>A folder with result JSON files</source>
        <translation>包含结果 JSON 文件的文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Results folder</source>
        <translation>结果文件夹</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>测试点</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Select one run to open it; Ctrl/Shift-select to compare.</source>
        <translation>选中一次运行即可打开；按住 Ctrl/Shift 多选以对比。</translation>
    </message>
    <message>
        <source>Export data…</source>
        <translation>导出数据…</translation>
    </message>
    <message>
        <source>CSV, JSON or Markdown table (Ctrl+E)</source>
        <translation>CSV、JSON 或 Markdown 表格（Ctrl+E）</translation>
    </message>
    <message>
        <source>Export charts…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Each chart as PNG or SVG</source>
        <translation>每张图表导出为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>Knee curves</source>
        <translation>拐点曲线</translation>
    </message>
    <message>
        <source>Distributions</source>
        <translation>分布</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Definitions</source>
        <translation>指标定义</translation>
    </message>
    <message>
        <source>Show TPOT, ITL and throughput as this tool defines them, computed from each point&apos;s saved per-request data</source>
        <translation>按该工具的定义显示 TPOT、ITL 和吞吐，由每个测试点保存的逐请求数据计算</translation>
    </message>
    <message>
        <source>No results yet: a sweep saves its runs in {0}.</source>
        <translation>还没有结果：扫描的运行结果会保存在 {0}。</translation>
    </message>
    <message>
        <source>Reading {0}…</source>
        <translation>正在读取 {0}…</translation>
    </message>
    <message>
        <source>{0}
written by {1}</source>
        <translation>{0}
由 {1} 写入</translation>
    </message>
    <message>
        <source>{0} run(s) found.</source>
        <translation>找到 {0} 次运行。</translation>
    </message>
    <message>
        <source>{0} file(s) could not be read; the others opened:</source>
        <translation>有 {0} 个文件无法读取；其余文件已打开：</translation>
    </message>
    <message>
        <source>Some folders could not be read; the others opened:</source>
        <translation>有些文件夹无法读取；其余已打开：</translation>
    </message>
    <message>
        <source>{0} is not a folder: type the folder your sweeps save to, or choose one with Browse…</source>
        <translation>{0} 不是文件夹：请输入扫描结果保存的文件夹，或点击“浏览…”选择一个</translation>
    </message>
    <message>
        <source>Choose a results folder</source>
        <translation>选择结果文件夹</translation>
    </message>
    <message>
        <source>TPOT per request; ITL per chunk gap (the files&apos; own figures).</source>
        <translation>TPOT 按请求计；ITL 按数据块间隔计（结果文件自身的数值）。</translation>
    </message>
    <message>
        <source>GuideLLM: its TPOT includes TTFT; its ITL is vLLM&apos;s TPOT; both weighted by output tokens.</source>
        <translation>GuideLLM：其 TPOT 包含 TTFT；其 ITL 即 vLLM 的 TPOT；两者均按输出 token 加权。</translation>
    </message>
    <message>
        <source>AIPerf: its inter-token latency is vLLM&apos;s TPOT (per request); inter-chunk latency is the chunk gaps.</source>
        <translation>AIPerf：其 inter-token latency 即 vLLM 的 TPOT（按请求）；inter-chunk latency 为数据块间隔。</translation>
    </message>
    <message>
        <source>SGLang: ITL per token (a chunk&apos;s gap shared by its tokens) when chunk sizes are known, else per chunk.</source>
        <translation>SGLang：已知数据块大小时 ITL 按 token 计（一个数据块的间隔由其 token 均分），否则按数据块计。</translation>
    </message>
    <message>
        <source>evalscope: averages; a one-token reply counts 0 in its TPOT.</source>
        <translation>evalscope：只给均值；单 token 回复的 TPOT 计为 0。</translation>
    </message>
    <message>
        <source>Choose a .csv, .json or .md file name (got {0}).</source>
        <translation>请选择 .csv、.json 或 .md 文件名（当前为 {0}）。</translation>
    </message>
    <message>
        <source>Export data</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>These files already exist in {0}:
{1}
Replace them?</source>
        <translation>{0} 中已有这些文件：
{1}
要替换它们吗？</translation>
    </message>
    <message>
        <source>Exported to {0}: {1}.</source>
        <translation>已导出到 {0}：{1}。</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Could not export to {0}: {1}</source>
        <translation>无法导出到 {0}：{1}</translation>
    </message>
    <message>
        <source>Choose a .png or .svg file name (got {0}).</source>
        <translation>请选择 .png 或 .svg 文件名（当前为 {0}）。</translation>
    </message>
</context>
<context>
    <name>RoofPlot</name>
    <message>
        <source>attainable TFLOP/s</source>
        <translation>可达 TFLOP/s</translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP/byte)</source>
        <translation>算术强度（FLOP/字节）</translation>
    </message>
    <message>
        <source>roof</source>
        <translation>屋顶</translation>
    </message>
    <message>
        <source>decode floor, batch 1…1024</source>
        <translation>解码下限，批大小 1…1024</translation>
    </message>
    <message>
        <source>batch 1</source>
        <translation>批大小 1</translation>
    </message>
    <message>
        <source>measured p50</source>
        <translation>实测 p50</translation>
    </message>
    <message>
        <source>ridge {r:.0f} FLOP/B</source>
        <translation>脊点 {r:.0f} FLOP/B</translation>
    </message>
</context>
<context>
    <name>RooflinePanel</name>
    <message>
        <source>TPOT vs batch</source>
        <translation>TPOT 与批大小</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>屋顶线图</translation>
    </message>
    <message>
        <source>What-if</source>
        <translation>假设分析</translation>
    </message>
    <message>
        <source>Pareto</source>
        <translation>帕累托</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>测试点</translation>
    </message>
    <message>
        <source>latest sweep</source>
        <translation>最近一次扫描</translation>
    </message>
    <message>
        <source>all sweeps this session</source>
        <translation>本次会话的全部扫描</translation>
    </message>
    <message>
        <source>Which sweeps&apos; points the charts show.</source>
        <translation>图表显示哪些扫描的测试点。</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Remove every measured point from the charts.</source>
        <translation>从图表中移除所有实测点。</translation>
    </message>
    <message>
        <source>c{c}</source>
        <translation>并发{c}</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>live probe</source>
        <translation>实时探测</translation>
    </message>
    <message>
        <source>Cannot use that file: {error}</source>
        <translation>无法使用该文件：{error}</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>受显存带宽限制</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>受算力限制</translation>
    </message>
    <message>
        <source>Batch-1 floor: &lt;b&gt;{v:.2f} ms&lt;/b&gt;</source>
        <translation>单请求（批大小 1）下限：&lt;b&gt;{v:.2f} ms&lt;/b&gt;</translation>
    </message>
    <message>
        <source>floor = max(bytes ÷ bandwidth, FLOPs ÷ peak)
= max({b} ÷ {bw:.0f} GB/s, {f:.1f} GFLOP ÷ {p:.1f} TFLOP/s)
= max({m}, {c}) → {bound}
context {ctx} tokens; the input embedding is gathered, not read whole</source>
        <translation>下限 = max(字节数 ÷ 带宽, FLOPs ÷ 峰值算力)
= max({b} ÷ {bw:.0f} GB/s, {f:.1f} GFLOP ÷ {p:.1f} TFLOP/s)
= max({m}, {c}) → {bound}
上下文 {ctx} 个 token；输入嵌入表只按行取用，不整表读取</translation>
    </message>
    <message>
        <source>Best single stream: &lt;b&gt;{v:.1f} tok/s&lt;/b&gt;</source>
        <translation>单流最快：&lt;b&gt;{v:.1f} tok/s&lt;/b&gt;</translation>
    </message>
    <message>
        <source>best tok/s = 1 ÷ batch-1 floor = 1 ÷ {f}</source>
        <translation>最快 tok/s = 1 ÷ 批大小 1 的下限 = 1 ÷ {f}</translation>
    </message>
    <message>
        <source>KV capacity: &lt;b&gt;{t:,} tokens&lt;/b&gt;</source>
        <translation>KV 容量：&lt;b&gt;{t:,} 个 token&lt;/b&gt;</translation>
    </message>
    <message>
        <source> ({n} seqs × {ctx})</source>
        <translation>（{n} 个序列 × {ctx}）</translation>
    </message>
    <message>
        <source>num_gpu_blocks = (memory × 0.987 visible × utilisation {u} − weights {w} − activation/non-torch reserve) ÷ (block {bs} × {kv:,.0f} B per token)
= {blocks:,} blocks = {t:,} tokens; KV bytes per token = 2 × {L} layers × {h} KV heads × {d} head dim × {e:g} B</source>
        <translation>num_gpu_blocks = (显存 × 0.987 可见 × 利用率 {u} − 权重 {w} − 激活/非 torch 预留) ÷ (块大小 {bs} × 每 token {kv:,.0f} B)
= {blocks:,} 块 = {t:,} 个 token；每 token 的 KV 字节 = 2 × {L} 层 × {h} 个 KV 头 × 头维度 {d} × {e:g} B</translation>
    </message>
    <message>
        <source>Ridge: &lt;b&gt;{r:.0f} FLOP/B&lt;/b&gt; (decode: {i:.1f})</source>
        <translation>脊点：&lt;b&gt;{r:.0f} FLOP/B&lt;/b&gt;（解码：{i:.1f}）</translation>
    </message>
    <message>
        <source>ridge = peak ÷ bandwidth = {p:.1f} TFLOP/s ÷ {bw:.0f} GB/s
batch-1 decode intensity = {f:.1f} GFLOP ÷ {b} = {i:.2f} FLOP/byte</source>
        <translation>脊点 = 峰值算力 ÷ 带宽 = {p:.1f} TFLOP/s ÷ {bw:.0f} GB/s
批大小 1 的解码算术强度 = {f:.1f} GFLOP ÷ {b} = {i:.2f} FLOP/字节</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>LM head</source>
        <translation>输出层</translation>
    </message>
    <message>
        <source>KV</source>
        <translation>KV</translation>
    </message>
    <message>
        <source>Bytes per step {total}: </source>
        <translation>每步读取 {total}：</translation>
    </message>
    <message>
        <source>weights: transformer layers in {fmt} ({bpp:.3f} B per weight incl. scales)
LM head: {V:,} × {h:,} read whole every step
KV: batch 1 × {ctx} tokens × {kv:,.0f} B per token</source>
        <translation>权重：{fmt} 格式的 transformer 层（含缩放因子，每个权重 {bpp:.3f} B）
输出层：{V:,} × {h:,}，每步整表读取
KV：批大小 1 × {ctx} 个 token × 每 token {kv:,.0f} B</translation>
    </message>
    <message>
        <source>p50 at batch {b:g}</source>
        <translation>批大小 {b:g} 的 p50</translation>
    </message>
    <message>
        <source>MBU: run a probe or sweep</source>
        <translation>MBU：请运行一次探测或扫描</translation>
    </message>
    <message>
        <source>MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth</source>
        <translation>MBU = 每步字节数 ÷ 实测 TPOT ÷ 峰值带宽</translation>
    </message>
    <message>
        <source>MBU: &lt;b&gt;{v:.1f} %&lt;/b&gt; at {ms:.1f} ms ({what})</source>
        <translation>MBU：&lt;b&gt;{v:.1f} %&lt;/b&gt;，{ms:.1f} ms（{what}）</translation>
    </message>
    <message>
        <source>MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth
= {b} ÷ {ms:.2f} ms ÷ {bw:.0f} GB/s = {v:.1f} %
MFU = {f:.1f} GFLOP ÷ {ms:.2f} ms ÷ {p:.1f} TFLOP/s = {u:.2f} %</source>
        <translation>MBU = 每步字节数 ÷ 实测 TPOT ÷ 峰值带宽
= {b} ÷ {ms:.2f} ms ÷ {bw:.0f} GB/s = {v:.1f} %
MFU = {f:.1f} GFLOP ÷ {ms:.2f} ms ÷ {p:.1f} TFLOP/s = {u:.2f} %</translation>
    </message>
</context>
<context>
    <name>RunProcess</name>
    <message>
        <source>The benchmark worker could not start ({0}).</source>
        <translation>测试进程无法启动（{0}）。</translation>
    </message>
    <message>
        <source>The benchmark worker crashed.</source>
        <translation>测试进程崩溃了。</translation>
    </message>
    <message>
        <source>The benchmark worker stopped with exit code {0}.</source>
        <translation>测试进程已退出，退出码 {0}。</translation>
    </message>
    <message>
        <source>Finished points are saved in {0}.</source>
        <translation>已完成的测试点保存在 {0}。</translation>
    </message>
</context>
<context>
    <name>ScenarioPicker</name>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>Tokens already in each sequence&apos;s KV cache</source>
        <translation>每个序列的 KV 缓存中已有的 token 数</translation>
    </message>
    <message>
        <source>Load a Hugging Face config.json</source>
        <translation>加载 Hugging Face 的 config.json</translation>
    </message>
    <message>
        <source>Add a GPU that is not in the catalogue</source>
        <translation>添加目录中没有的 GPU</translation>
    </message>
    <message>
        <source>GPUs the model is split over (vLLM&apos;s --tensor-parallel-size): the Pareto chart shows output tokens/s per GPU</source>
        <translation>模型切分到的 GPU 数（vLLM 的 --tensor-parallel-size）：帕累托图显示每 GPU 的输出 tokens/s</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>GPUs (TP)</source>
        <translation>GPU 数（TP）</translation>
    </message>
    <message>
        <source>Hugging Face config.json</source>
        <translation>Hugging Face config.json</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
</context>
<context>
    <name>SelftestDialog</name>
    <message>
        <source>Check this machine</source>
        <translation>检查本机</translation>
    </message>
    <message>
        <source>Measures the client&apos;s own ceiling here: the most streams it times faithfully against a local server that logs when it sent each token (median TTFT excess ≤ 1 ms, gap error p99 ≤ 0.5 ms), in one process and with 2 load workers. About a minute; the result is saved for this machine and sweeps past it warn.</source>
        <translation>测量客户端在本机上的上限：对着一个记录每个 token 发送时刻的本地服务器，客户端仍能准确计时的最多流数（TTFT 超出中位数 ≤ 1 ms，间隔误差 p99 ≤ 0.5 ms），分别在单进程和 2 个负载进程下测量。约需一分钟；结果按本机保存，超过它的扫描会发出警告。</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>in one process</source>
        <translation>单进程</translation>
    </message>
    <message>
        <source>{n} workers</source>
        <translation>{n} 个负载进程</translation>
    </message>
    <message>
        <source>within the limits</source>
        <translation>在限值内</translation>
    </message>
    <message>
        <source>over</source>
        <translation>超限</translation>
    </message>
    <message>
        <source>{mode}: {n} streams — TTFT excess p50 {ttft} ms, gap error p99 {gap} ms, CPU {cpu} ms per 1k tokens: {verdict}</source>
        <translation>{mode}：{n} 个流 — TTFT 超出 p50 {ttft} ms，间隔误差 p99 {gap} ms，每千 token CPU {cpu} ms：{verdict}</translation>
    </message>
    <message>
        <source>The self-test failed: {error}</source>
        <translation>自检失败：{error}</translation>
    </message>
    <message>
        <source>{mode}: not enough evidence — even 1 stream broke the limits.</source>
        <translation>{mode}：证据不足 — 连 1 个流都超出了限值。</translation>
    </message>
    <message>
        <source>{mode}: ceiling at least {n} streams</source>
        <translation>{mode}：上限至少 {n} 个流</translation>
    </message>
    <message>
        <source>{mode}: ceiling {n} streams</source>
        <translation>{mode}：上限 {n} 个流</translation>
    </message>
    <message>
        <source> ({cpu} ms CPU per 1k tokens)</source>
        <translation>（每千 token CPU {cpu} ms）</translation>
    </message>
</context>
<context>
    <name>ServerMetricsPanel</name>
    <message>
        <source>KV-cache usage</source>
        <translation>KV 缓存占用</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Preemptions (since start)</source>
        <translation>抢占次数（自开始起）</translation>
    </message>
    <message>
        <source>count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>KV usage</source>
        <translation>KV 占用</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>preemptions</source>
        <translation>抢占</translation>
    </message>
    <message>
        <source>time (m:ss)</source>
        <translation>时间（分:秒）</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop asking the server for /metrics (every 2 s idle, 4 times a second during a run); the charts stay as they are.</source>
        <translation>停止读取服务器的 /metrics（空闲时每 2 秒一次，运行时每秒 4 次）；图表保持当前内容。</translation>
    </message>
    <message>
        <source>Paused: /metrics is not being read.</source>
        <translation>已暂停：不再读取 /metrics。</translation>
    </message>
    <message>
        <source>No /metrics at this endpoint ({0}).</source>
        <translation>此端点没有 /metrics（{0}）。</translation>
    </message>
    <message>
        <source>Reading the server&apos;s /metrics…</source>
        <translation>正在读取服务器的 /metrics…</translation>
    </message>
    <message>
        <source>No server metrics yet.</source>
        <translation>尚无服务器指标。</translation>
    </message>
    <message>
        <source>KV {0:.0f}%</source>
        <translation>KV {0:.0f}%</translation>
    </message>
    <message>
        <source>running {0:.0f}</source>
        <translation>运行 {0:.0f}</translation>
    </message>
    <message>
        <source>waiting {0:.0f}</source>
        <translation>排队 {0:.0f}</translation>
    </message>
    <message>
        <source>preemptions {0:.0f}</source>
        <translation>抢占 {0:.0f}</translation>
    </message>
    <message>
        <source>server metrics: no known gauges</source>
        <translation>服务器指标：没有可识别的指标</translation>
    </message>
    <message>
        <source>vLLM (V1 metric names)</source>
        <translation>vLLM（V1 指标名）</translation>
    </message>
    <message>
        <source>vLLM (legacy V0 metric names)</source>
        <translation>vLLM（旧版 V0 指标名）</translation>
    </message>
    <message>
        <source>SGLang</source>
        <translation>SGLang</translation>
    </message>
    <message>
        <source>llama.cpp server</source>
        <translation>llama.cpp 服务器</translation>
    </message>
    <message>
        <source>Text Generation Inference</source>
        <translation>Text Generation Inference</translation>
    </message>
    <message>
        <source>unrecognised Prometheus exporter</source>
        <translation>未识别的 Prometheus 导出端</translation>
    </message>
    <message>
        <source>KV pool {0:,} tokens</source>
        <translation>KV 池 {0:,} 个 token</translation>
    </message>
</context>
<context>
    <name>SloDialog</name>
    <message>
        <source>Service-level objectives</source>
        <translation>服务等级目标（SLO）</translation>
    </message>
    <message>
        <source>Each point passes an SLO when its statistic is at or below the limit. A capacity search finds the highest load that meets every SLO.</source>
        <translation>测试点的统计值不超过限值即通过该 SLO。容量搜索会找出满足全部 SLO 的最高负载。</translation>
    </message>
</context>
<context>
    <name>SloEditor</name>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>ITL</source>
        <translation>ITL</translation>
    </message>
    <message>
        <source>E2EL</source>
        <translation>E2EL</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>SloSummary</name>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Set the latency goals each point is judged against</source>
        <translation>设置用来评判每个测试点的延迟目标</translation>
    </message>
</context>
<context>
    <name>SweepCurves</name>
    <message>
        <source>Output throughput</source>
        <translation>输出吞吐量</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>TPOT P50 / P99</source>
        <translation>TPOT P50 / P99</translation>
    </message>
    <message>
        <source>floor</source>
        <translation>下限</translation>
    </message>
    <message>
        <source>(P99 dashed)</source>
        <translation>（P99 为虚线）</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>TTFT P99</source>
        <translation>TTFT P99</translation>
    </message>
    <message>
        <source>No points yet: run a sweep or pick runs.</source>
        <translation>还没有测试点：运行一次扫描或选择运行记录。</translation>
    </message>
    <message>
        <source>rate {v}</source>
        <translation>速率 {v}</translation>
    </message>
    <message>
        <source>conc {v}</source>
        <translation>并发 {v}</translation>
    </message>
    <message>
        <source>request rate (req/s)</source>
        <translation>请求速率（请求/秒）</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>max concurrency</source>
        <translation>最大并发数</translation>
    </message>
</context>
<context>
    <name>SweepForm</name>
    <message>
        <source>&apos;{0}&apos; is not a request rate: use numbers or inf.</source>
        <translation>“{0}” 不是有效的请求速率：请填数字或 inf。</translation>
    </message>
    <message>
        <source>Request rate {0} must be above 0 (use inf for no limit).</source>
        <translation>请求速率 {0} 必须大于 0（不限速请填 inf）。</translation>
    </message>
    <message>
        <source>Enter at least one request rate, for example: inf</source>
        <translation>请至少填写一个请求速率，例如：inf</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not a concurrency: use whole numbers of 1 or more.</source>
        <translation>“{0}” 不是有效的并发数：请填 1 或更大的整数。</translation>
    </message>
    <message>
        <source>Enter at least one concurrency, for example: 32</source>
        <translation>请至少填写一个并发数，例如：32</translation>
    </message>
    <message>
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分</translation>
    </message>
    <message>
        <source>{0} min {1} s</source>
        <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Request rates</source>
        <translation>请求速率</translation>
    </message>
    <message>
        <source>Concurrencies</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>Prompts per point</source>
        <translation>每点提示词数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Results folder</source>
        <translation>结果文件夹</translation>
    </message>
    <message>
        <source>Quick demo (about 30 s)</source>
        <translation>快速演示（约 30 秒）</translation>
    </message>
    <message>
        <source>Rate inf, concurrency 8 … 64, 64 short random prompts per point.</source>
        <translation>速率 inf，并发 8 … 64，每点 64 条较短的随机提示词。</translation>
    </message>
    <message>
        <source>Experiment A (rates)</source>
        <translation>实验 A（请求速率）</translation>
    </message>
    <message>
        <source>The field guide&apos;s experiment A: concurrency 32, rate 1, 2, 4, 8, 16, inf.</source>
        <translation>实战指南的实验 A：并发 32，速率 1、2、4、8、16、inf。</translation>
    </message>
    <message>
        <source>Experiment B (concurrencies)</source>
        <translation>实验 B（并发数）</translation>
    </message>
    <message>
        <source>The field guide&apos;s experiment B: rate inf, concurrency 1 … 128.</source>
        <translation>实战指南的实验 B：速率 inf，并发 1 … 128。</translation>
    </message>
    <message>
        <source>Find capacity (about 2 min)</source>
        <translation>寻找容量（约 2 分钟）</translation>
    </message>
    <message>
        <source>Rate inf: the highest concurrency that meets every SLO (TTFT p99 2 s, TPOT p99 50 ms unless you set others), found by doubling from 4 then bisecting (tpotbench search), with 256-token prompts and 64-token replies. Concurrencies: the first and the highest tried.</source>
        <translation>速率 inf：满足全部 SLO（除非另行设置，为 TTFT p99 2 秒、TPOT p99 50 毫秒）的最高并发数，从 4 开始翻倍再二分查找（tpotbench search），提示 256 个 token、回复 64 个 token。并发数：首个与最高尝试值。</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>Comma-separated.</source>
        <translation>用逗号分隔。</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Requests sent at each sweep point.</source>
        <translation>每个扫描点发送的请求数。</translation>
    </message>
    <message>
        <source>Find capacity sends single prompts: choose another dataset.</source>
        <translation>容量搜索只发送单轮提示：请选择其他数据集。</translation>
    </message>
    <message>
        <source>Find capacity sets the pace, a trace has its own: choose another dataset.</source>
        <translation>容量搜索需要自行控制节奏，而轨迹有自己的节奏：请选择其他数据集。</translation>
    </message>
    <message>
        <source>Ignore EOS</source>
        <translation>忽略 EOS</translation>
    </message>
    <message>
        <source>Always generate the requested output length.</source>
        <translation>始终生成请求的输出长度。</translation>
    </message>
    <message>
        <source>File names become LABEL_rateR_concC.json.</source>
        <translation>文件名为 LABEL_rateR_concC.json。</translation>
    </message>
    <message>
        <source>SLOs</source>
        <translation>SLO</translation>
    </message>
    <message>
        <source>Latency goals: each point shows pass/fail per SLO and its goodput.</source>
        <translation>延迟目标：每个测试点显示各 SLO 是否通过以及有效吞吐。</translation>
    </message>
    <message>
        <source>Advanced settings</source>
        <translation>高级设置</translation>
    </message>
    <message>
        <source>Burstiness, warm-up requests, temperature, load workers, request time-out</source>
        <translation>突发度、预热请求、温度、负载进程数、请求超时</translation>
    </message>
    <message>
        <source>Sessions per point</source>
        <translation>每点会话数</translation>
    </message>
    <message>
        <source>Conversations run at each sweep point: each sends all its turns, every one with the history so far. The request rate is the rate sessions start at.</source>
        <translation>每个扫描点运行的对话数：每个对话发送它的全部轮次，每一轮都带上此前的完整历史。请求速率即会话开始的速率。</translation>
    </message>
    <message>
        <source>Choose the results folder</source>
        <translation>选择结果文件夹</translation>
    </message>
    <message>
        <source>Choose a results folder.</source>
        <translation>请选择结果文件夹。</translation>
    </message>
    <message>
        <source>Find capacity: give one request rate and two concurrencies, the first and the highest to try (e.g. 1, 256).</source>
        <translation>寻找容量：请填写一个请求速率和两个并发数，即起始值和最高尝试值（例如 1, 256）。</translation>
    </message>
    <message>
        <source>Find capacity: set at least one SLO.</source>
        <translation>寻找容量：请至少设置一个 SLO。</translation>
    </message>
</context>
<context>
    <name>SweepPanel</name>
    <message>
        <source>Run sweep</source>
        <translation>开始扫描</translation>
    </message>
    <message>
        <source>Run the sweep (Ctrl+R)</source>
        <translation>开始扫描（Ctrl+R）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop after in-flight requests; keeps finished points (Esc)</source>
        <translation>等进行中的请求结束后停止；保留已完成的测试点（Esc）</translation>
    </message>
    <message>
        <source>Copy as command</source>
        <translation>复制为命令</translation>
    </message>
    <message>
        <source>Copy the tpotbench sweep (or search) command for these settings, and the matching vllm bench serve line per point where vLLM has the same workload; the key is never copied (the command reads OPENAI_API_KEY)</source>
        <translation>复制与当前设置对应的 tpotbench sweep（或 search）命令，以及 vLLM 有相同负载时每个测试点对应的 vllm bench serve 命令；密钥从不复制（命令从 OPENAI_API_KEY 读取）</translation>
    </message>
    <message>
        <source>Ready.</source>
        <translation>就绪。</translation>
    </message>
    <message>
        <source>in one process</source>
        <translation>单进程</translation>
    </message>
    <message>
        <source>with {n} workers</source>
        <translation>使用 {n} 个负载进程</translation>
    </message>
    <message>
        <source>⚠ This sweep runs up to {n} streams, past this machine&apos;s client ceiling of {ceiling} streams {mode} (measured {date}): figures above it may include the client&apos;s own delays. Add load workers (Advanced settings) or check the machine again (Run ▸ Check this machine).</source>
        <translation>⚠ 本次扫描最多运行 {n} 个流，超过了本机客户端上限 {ceiling} 个流（{mode}，测于 {date}）：超过上限的测试点可能含有客户端自身的延迟。请添加负载进程（高级设置），或重新检查本机（运行 ▸ 检查本机）。</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Sweep curves</source>
        <translation>扫描曲线</translation>
    </message>
    <message>
        <source>Hide sweep settings</source>
        <translation>隐藏扫描设置</translation>
    </message>
    <message>
        <source>Show sweep settings</source>
        <translation>显示扫描设置</translation>
    </message>
    <message>
        <source>Fold the sweep settings away so the charts get the room</source>
        <translation>收起扫描设置，把空间留给图表</translation>
    </message>
    <message>
        <source>Show the sweep settings form</source>
        <translation>显示扫描设置表单</translation>
    </message>
    <message>
        <source>Distributions</source>
        <translation>分布</translation>
    </message>
    <message>
        <source>The selected endpoint has no base URL yet.</source>
        <translation>所选端点还没有基础 URL。</translation>
    </message>
    <message>
        <source>Copied to the clipboard: the tpotbench command and {n} vllm bench serve line(s), one per point.</source>
        <translation>已复制到剪贴板：tpotbench 命令和 {n} 条 vllm bench serve 命令（每个测试点一条）。</translation>
    </message>
    <message>
        <source>Copied the tpotbench command to the clipboard.</source>
        <translation>已将 tpotbench 命令复制到剪贴板。</translation>
    </message>
    <message>
        <source>Starting the benchmark worker…</source>
        <translation>正在启动测试进程…</translation>
    </message>
    <message>
        <source>r=</source>
        <comment>a point&apos;s request rate, as in r=4</comment>
        <translation>速率=</translation>
    </message>
    <message>
        <source>c=</source>
        <comment>a point&apos;s concurrency, as in c=8</comment>
        <translation>并发=</translation>
    </message>
    <message>
        <source>Cancelling: no new requests; waiting for {0} in-flight request(s) to finish…</source>
        <translation>正在取消：不再发送新请求；等待 {0} 个进行中的请求结束…</translation>
    </message>
    <message>
        <source>Cancelling: waiting for in-flight requests…</source>
        <translation>正在取消：等待进行中的请求…</translation>
    </message>
    <message>
        <source>Cancelled: {0} complete point(s) kept in {1}.</source>
        <translation>已取消：{0} 个完整测试点保存在 {1}。</translation>
    </message>
    <message>
        <source>One partial point ({0} of {1} requests finished) saved as {2}.</source>
        <translation>一个不完整的测试点（{1} 个请求中完成了 {0} 个）已保存为 {2}。</translation>
    </message>
    <message>
        <source>Search done: {0} point(s) saved in {1}.</source>
        <translation>搜索完成：{0} 个测试点已保存到 {1}。</translation>
    </message>
    <message>
        <source>Done: {0} point(s) saved in {1}.</source>
        <translation>完成：{0} 个测试点已保存到 {1}。</translation>
    </message>
    <message>
        <source>a load takes {0}</source>
        <comment>how long one search point took</comment>
        <translation>每个负载用时 {0}</translation>
    </message>
    <message>
        <source>at most {0} more</source>
        <translation>最多还有 {0} 个</translation>
    </message>
    <message>
        <source>{0} to {1} left</source>
        <comment>the time a sweep still needs</comment>
        <translation>还需 {0} 至 {1}</translation>
    </message>
    <message>
        <source>time left known after the first point</source>
        <translation>第一个测试点完成后可估算剩余时间</translation>
    </message>
    <message>
        <source>⚠ Load not as planned at {0} point(s): {1} (see Status).</source>
        <translation>⚠ {0} 个测试点的负载未按计划：{1}（见“状态”列）。</translation>
    </message>
    <message>
        <source>this run</source>
        <translation>本次运行</translation>
    </message>
    <message>
        <source>Search point {0} · requests {1}/{2}</source>
        <translation>搜索第 {0} 个测试点 · 请求 {1}/{2}</translation>
    </message>
    <message>
        <source>Point {0} of {1} · requests {2}/{3}</source>
        <translation>第 {0}/{1} 个测试点 · 请求 {2}/{3}</translation>
    </message>
    <message>
        <source>({0} failed)</source>
        <translation>（{0} 个失败）</translation>
    </message>
    <message>
        <source>about {0} left</source>
        <translation>约剩 {0}</translation>
    </message>
    <message>
        <source>No request succeeded in {0} of {1} point(s); they have no latency figures.</source>
        <translation>{1} 个测试点中有 {0} 个没有任何成功的请求，因此没有延迟数据。</translation>
    </message>
    <message>
        <source>{head} {what}. {fix}</source>
        <translation>{head}{what}。{fix}</translation>
    </message>
    <message>
        <source>kernel receive stamps</source>
        <translation>内核接收时间戳</translation>
    </message>
    <message>
        <source>stamped by the event loop (no kernel stamps: late when busy)</source>
        <translation>由事件循环打点（无内核时间戳：繁忙时偏晚）</translation>
    </message>
    <message>
        <source>stamped per decrypted TLS record</source>
        <translation>按解密后的 TLS 记录打点</translation>
    </message>
    <message>
        <source>Token times: {0}.</source>
        <translation>词元时间：{0}。</translation>
    </message>
</context>
<context>
    <name>WhatIfView</name>
    <message>
        <source>Setup</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Floor TPOT</source>
        <translation>TPOT 下限</translation>
    </message>
    <message>
        <source>Best tok/s</source>
        <translation>最佳 tok/s</translation>
    </message>
    <message>
        <source>KV capacity</source>
        <translation>KV 容量</translation>
    </message>
    <message>
        <source>vs now</source>
        <translation>相对当前</translation>
    </message>
    <message>
        <source>{model} on {gpu}, every weight format</source>
        <translation>{model} 在 {gpu} 上，各种权重格式</translation>
    </message>
    <message>
        <source>{model} in {fmt}, other GPUs</source>
        <translation>{model}（{fmt}）在其他 GPU 上</translation>
    </message>
    <message>
        <source>AWQ INT4 vs BF16 on {gpu}: floor {a:.2f} ms vs {b:.2f} ms, {g:.1f}× faster ({p:.0f} % of the BF16 floor). Measured INT4 TPOT usually gains less: the field guide expects it roughly halved.</source>
        <translation>{gpu} 上 AWQ INT4 对比 BF16：下限 {a:.2f} ms 对 {b:.2f} ms，快 {g:.1f} 倍（为 BF16 下限的 {p:.0f} %）。实测 INT4 的 TPOT 通常提升更少：实战指南预计大约减半。</translation>
    </message>
    <message>
        <source>gain = BF16 bytes per step ÷ INT4 bytes per step = {x} ÷ {y}</source>
        <translation>提升 = BF16 每步字节数 ÷ INT4 每步字节数 = {x} ÷ {y}</translation>
    </message>
    <message>
        <source>floor = {b} per step ÷ {bw:.0f} GB/s ({fmt}, {gpu}, batch 1)</source>
        <translation>下限 = 每步 {b} ÷ {bw:.0f} GB/s（{fmt}，{gpu}，批大小 1）</translation>
    </message>
    <message>
        <source>1000 ÷ {f:.2f} ms</source>
        <translation>1000 ÷ {f:.2f} ms</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>tokens of KV cache at gpu_memory_utilization {u}, block 16</source>
        <translation>gpu_memory_utilization 为 {u}、块大小 16 时 KV cache 可容纳的 token 数</translation>
    </message>
    <message>
        <source>current floor ÷ this floor</source>
        <translation>当前下限 ÷ 此下限</translation>
    </message>
</context>
<context>
    <name>Why</name>
    <message>
        <source>Capacity: {0} within every SLO; at {1} it fails {2}.</source>
        <translation>容量：{0} 满足全部 SLO；到 {1} 时未通过 {2}。</translation>
    </message>
    <message>
        <source>Capacity: {0} or more (every load tried met every SLO).</source>
        <translation>容量：{0} 或更高（尝试过的负载都满足全部 SLO）。</translation>
    </message>
    <message>
        <source>{0} prompts cannot hold more streams in flight, so no higher load was measured: raise Prompts per point to search higher.</source>
        <translation>{0} 个提示词无法让更多并发流同时在途，因此没有测量更高的负载：调大“每点提示词数”才能搜索更高负载。</translation>
    </message>
    <message>
        <source>Capacity: no load tried meets every SLO.</source>
        <translation>容量：尝试过的负载都不能满足全部 SLO。</translation>
    </message>
    <message>
        <source>Why: {0}</source>
        <translation>原因：{0}</translation>
    </message>
    <message>
        <source>Why (from a full run at {0}, {1} requests): {2}</source>
        <translation>原因（取自在 {0} 处的一次完整测量，{1} 个请求）：{2}</translation>
    </message>
    <message>
        <source>Knee of {0}: {1}. {2}</source>
        <translation>{0} 的拐点：{1}。{2}</translation>
    </message>
    <message>
        <source>Not monotonic: {0} passed above a failing load; run again.</source>
        <translation>结果不单调：{0} 在一个未通过的负载之上反而通过；请重新测量。</translation>
    </message>
    <message>
        <source>{0} streams</source>
        <translation>{0} 路并发</translation>
    </message>
    <message>
        <source>{0} req/s</source>
        <translation>{0} 请求/秒</translation>
    </message>
    <message>
        <source>SLO {0} ms</source>
        <translation>SLO {0} ms</translation>
    </message>
    <message>
        <source>capacity {0}</source>
        <translation>容量 {0}</translation>
    </message>
    <message>
        <source>knee</source>
        <translation>拐点</translation>
    </message>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>meets every SLO</source>
        <translation>满足全部 SLO</translation>
    </message>
    <message>
        <source>fails an SLO</source>
        <translation>有 SLO 未通过</translation>
    </message>
</context>
<context>
    <name>WindowStatus</name>
    <message>
        <source>simulator running at {url}</source>
        <translation>模拟器运行于 {url}</translation>
    </message>
    <message>
        <source>simulator failed to start: {error}</source>
        <translation>模拟器启动失败：{error}</translation>
    </message>
    <message>
        <source>simulator starting…</source>
        <translation>模拟器启动中…</translation>
    </message>
    <message>
        <source>{url}, unsaved edits</source>
        <translation>{url}，有未保存的修改</translation>
    </message>
    <message>
        <source>Endpoint: {name} ({where})</source>
        <translation>端点：{name}（{where}）</translation>
    </message>
    <message>
        <source>Keyring: {backend}</source>
        <translation>密钥环：{backend}</translation>
    </message>
    <message>
        <source>Keyring: none (keys kept for this session only)</source>
        <translation>密钥环：无（密钥仅在本次会话中保留）</translation>
    </message>
</context>
</TS>
