"""BibTeX for each benchmark's paper(s), as the publishers give it or as their papers print it.

Every field below was read from the publisher's repository README (its arXiv badge for an ``eprint``
the README's entry lacks), the paper's own front matter, ``shared/design`` or a reference list in
``shared/seeds``; a field that could not be checked is left out (no invented DOI,
venue or pages). A benchmark without an entry shows its ``citation`` text only.
"""

from __future__ import annotations


def entry(kind: str, key: str, authors: tuple[str, ...], **fields: str) -> str:
    """One BibTeX entry: ``title`` first, then ``author`` (joined by ``and``), then the other fields."""
    rows = {"title": fields.pop("title"), "author": " and ".join(authors), **fields}
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in rows.items())
    return f"@{kind}{{{key},\n{body}\n}}"


_DIALBGM = entry(
    "misc", "shin2026dialbgm",
    ("Shin, Joonhyeok", "Kang, Jaehoon", "Lee, Yujun", "Lee, Hannah", "Lee, Yejin", "Park, Yoonji", "Shim, Kyuhong"),
    title="DialBGM: A Benchmark for Background Music Recommendation from Everyday Multi-Turn Dialogues",
    year="2026", eprint="2604.07895", archivePrefix="arXiv", primaryClass="cs.AI")
_JAMENDO = entry(
    "misc", "koh2026jamendomtqabenchmarkmultitrackcomparative",
    ("Junyoung Koh", "Jaeyun Lee", "Soo Yong Kim", "Gyu Hyeong Choi", "Jung In Koh", "Jordan Phillips", "Yeonjin Lee",
     "Min Song"),
    title="Jamendo-MT-QA: A Benchmark for Multi-Track Comparative Music Question Answering",
    year="2026", eprint="2604.09721", archivePrefix="arXiv", primaryClass="cs.IR",
    url="https://arxiv.org/abs/2604.09721")
_DEEPRESONANCE = entry(
    "misc", "mao2025deepresonance",
    ("Mao, Zhuoyuan", "Zhao, Mengjie", "Wu, Qiyu", "Wakaki, Hiromi", "Mitsufuji, Yuki"),
    title="DeepResonance: Enhancing Multimodal Music Understanding via Music-centric Multi-way Instruction Tuning",
    year="2025", eprint="2502.12623", archivePrefix="arXiv")
_MU_LLAMA = entry(
    "inproceedings", "liu2024mullama",
    ("Liu, Shansong", "Hussain, Atin Sakkeer", "Sun, Chenshuo", "Shan, Ying"),
    title="Music Understanding LLaMA: Advancing Text-to-Music Generation with Question Answering and Captioning",
    booktitle="IEEE International Conference on Acoustics, Speech and Signal Processing, ICASSP 2024",
    pages="286--290", year="2024", eprint="2308.11276", archivePrefix="arXiv")
_MUSICLM = entry(
    "article", "agostinelli2023musiclm",
    ("Agostinelli, Andrea", "Denk, Timo I.", "Borsos, Zal{\\'a}n", "Engel, Jesse H.", "Verzetti, Mauro",
     "Caillon, Antoine", "Huang, Qingqing", "Jansen, Aren", "Roberts, Adam", "Tagliasacchi, Marco", "Sharifi, Matthew",
     "Zeghidour, Neil", "Frank, Christian Havn{\\o}"),
    title="MusicLM: Generating Music From Text", journal="CoRR", volume="abs/2301.11325", year="2023")
_MMAU = entry(
    "misc", "sakshi2024mmaumassivemultitaskaudio",
    ("S Sakshi", "Utkarsh Tyagi", "Sonal Kumar", "Ashish Seth", "Ramaneswaran Selvakumar", "Oriol Nieto",
     "Ramani Duraiswami", "Sreyan Ghosh", "Dinesh Manocha"),
    title="MMAU: A Massive Multi-Task Audio Understanding and Reasoning Benchmark",
    year="2024", eprint="2410.19168", archivePrefix="arXiv", primaryClass="eess.AS",
    url="https://arxiv.org/abs/2410.19168")
_MUCHOMUSIC = entry(
    "inproceedings", "weck2024muchomusic",
    ("Weck, Benno", "Manco, Ilaria", "Benetos, Emmanouil", "Quinton, Elio", 'Fazekas, Gy{\\"o}rgy', "Bogdanov, Dmitry"),
    title="MuChoMusic: Evaluating Music Understanding in Multimodal Audio-Language Models",
    booktitle="Proceedings of the 25th International Society for Music Information Retrieval Conference (ISMIR)",
    year="2024", eprint="2408.01337", archivePrefix="arXiv")
_MMAR = entry(
    "article", "ma2025mmar",
    ("Ma, Ziyang", "Ma, Yinghao", "Zhu, Yanqiao", "Yang, Chen", "Chao, Yi-Wen", "Xu, Ruiyang", "others"),
    title="MMAR: A Challenging Benchmark for Deep Reasoning in Speech, Audio, Music, and Their Mix",
    journal="arXiv preprint arXiv:2505.13032", year="2025")
_RUL = entry(
    "article", "rulmuchomusic",
    ("Zang, Yongyi", "O'Brien, Sean", "Berg-Kirkpatrick, Taylor", "McAuley, Julian", "Novack, Zachary"),
    title="Are you really listening? boosting perceptual awareness in music-qa benchmarks",
    journal="International Society of Music Information Retrieval (ISMIR) 2025", year="2025", eprint="2504.00369",
    archivePrefix="arXiv")

_CMI = entry(
    "misc", "ma2025cmibenchcomprehensivebenchmarkevaluating",
    ("Yinghao Ma", "Siyou Li", "Juntao Yu", "Emmanouil Benetos", "Akira Maezawa"),
    title="CMI-Bench: A Comprehensive Benchmark for Evaluating Music Instruction Following",
    year="2025", eprint="2506.12285", archivePrefix="arXiv", primaryClass="eess.AS",
    url="https://arxiv.org/abs/2506.12285")

_LP_MUSICCAPS = entry(
    "article", "doh2023lp", ("Doh, SeungHeon", "Choi, Keunwoo", "Lee, Jongpil", "Nam, Juhan"),
    title="LP-MusicCaps: LLM-Based Pseudo Music Captioning", journal="arXiv preprint arXiv:2307.16372", year="2023")
_SONGFORMER = entry(
    "misc", "hao2026songformerscalingmusicstructure",
    ("Chunbo Hao", "Ruibin Yuan", "Jixun Yao", "Qixin Deng", "Xinyi Bai", "Yanbo Wang", "Wei Xue", "Lei Xie"),
    title="SongFormer: Scaling Music Structure Analysis with Heterogeneous Supervision",
    year="2026", eprint="2510.02797", archivePrefix="arXiv", primaryClass="eess.AS",
    url="https://arxiv.org/abs/2510.02797")

_DEEPRESONANCE_SETS = ("music4way-musiccaps", "music4way-mi2t", "music4way-mv2t", "music4way-any2t", "gtzan",
                       "musicnet", "musicinstruct-long", "musicinstruct-short", "mtg-jamendo")

BIBTEX: dict[str, tuple[str, ...]] = {
    "dialbgm": (_DIALBGM,),
    "jamendo-mt-qa": (_JAMENDO,),
    "musicqa": (_MU_LLAMA,),
    "musiccaps": (_MUSICLM, _DEEPRESONANCE),
    **{name: (_DEEPRESONANCE,) for name in _DEEPRESONANCE_SETS},
    "mmau": (_MMAU,),
    "muchomusic": (_MUCHOMUSIC,),
    "mmar": (_MMAR,),
    "rul-muchomusic": (_RUL, _MUCHOMUSIC),
    "lp-musiccaps": (_LP_MUSICCAPS,),
    "songformbench": (_SONGFORMER,),
}


BIBTEX_BY_PREFIX: dict[str, tuple[str, ...]] = {"cmi-": (_CMI,)}  # one paper for a family of benchmarks


def bibtex(benchmark: str) -> str:
    """The benchmark's BibTeX entries (blank-line separated), or ``""`` when none could be verified."""
    entries = BIBTEX.get(benchmark) or next(
        (found for prefix, found in BIBTEX_BY_PREFIX.items() if benchmark.startswith(prefix)), ())
    return "\n\n".join(entries)
