"""The bibliography of dpviz: every work a docstring, a panel or a lesson cites, in one style.

A citation reads *author(s) year, result*: "Ghazi et al. 2023, Lemma 6", "Balle & Wang 2018, Thm 8", "Dwork &
Roth 2014, Thm A.1" (one author: "Brent 1973"; two: "A & B"; three: "A, B & C"; four or more: "A et al.", except
where that would merge two works: the partial-DP paper is "Ghazi, Kumar, Manurangsi & Steinke 2023", the
user-level paper with few examples per user "Ghazi et al. 2023"). :func:`cite` builds that text from a key, so
lessons and panels never invent their own; :data:`REFERENCES` maps each key to the full entry (authors, year, title,
venue, arXiv id). ``tests/contracts/test_references.py`` checks that every "author year" citation in the package and the
lessons resolves here.

>>> cite("ghazi2023few", "Lemma 6")
'Ghazi et al. 2023, Lemma 6'
>>> REFERENCES["balle2018gaussian"].arxiv
'1805.06530'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["REFERENCES", "Reference", "cite", "label"]


@dataclass(frozen=True)
class Reference:
    """One work: ``authors`` as surnames in order, ``year``, ``title``, ``venue``, ``arxiv`` id (or None)."""

    authors: tuple[str, ...]
    year: int
    title: str
    venue: str
    arxiv: str | None = None
    all_authors: bool = False  # name every author (to tell apart two works that "et al." would merge)

    @property
    def label(self) -> str:
        """The short form used in the text: "Ghazi et al. 2023"."""
        a = self.authors
        if self.all_authors and len(a) > 3:
            who = ", ".join(a[:-1]) + f" & {a[-1]}"
        elif len(a) == 1:
            who = a[0]
        elif len(a) == 2:
            who = f"{a[0]} & {a[1]}"
        elif len(a) == 3:
            who = f"{a[0]}, {a[1]} & {a[2]}"
        else:
            who = f"{a[0]} et al."
        return f"{who} {self.year}"


def _r(authors: str, year: int, title: str, venue: str, arxiv: str | None = None, *,
       all_authors: bool = False) -> Reference:
    return Reference(tuple(a.strip() for a in authors.split(",")), year, title, venue, arxiv, all_authors)


#: key → reference. Keys are first author's surname (lower case), year and a word of the title.
REFERENCES: dict[str, Reference] = {
    # -- the papers the lessons teach ------------------------------------------------------------------------------
    "ghazi2023few": _r("Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang", 2023,
                       "User-Level Differential Privacy With Few Examples Per User", "NeurIPS 2023", "2309.12500"),
    "ghazi2023granular": _r("Ghazi, Kumar, Manurangsi, Steinke", 2023,
                            "Algorithms with More Granular Differential Privacy Guarantees", "ITCS 2023", "2209.04053",
                            all_authors=True),
    "esfandiari2022mean": _r("Esfandiari, Mirrokni, Narayanan", 2022,
                             "Tight and Robust Private Mean Estimation with Few Users", "ICML 2022", "2110.11876"),
    "levy2021learning": _r("Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh", 2021, "Learning with User-Level Privacy",
                           "NeurIPS 2021", "2102.11845"),
    # -- foundations -------------------------------------------------------------------------------------------------
    "dwork2014algorithmic": _r("Dwork, Roth", 2014, "The Algorithmic Foundations of Differential Privacy",
                               "Foundations and Trends in Theoretical Computer Science 9(3–4)"),
    "dwork2006calibrating": _r("Dwork, McSherry, Nissim, Smith", 2006,
                               "Calibrating Noise to Sensitivity in Private Data Analysis", "TCC 2006",
                               all_authors=True),
    "dwork2006our": _r("Dwork, Kenthapadi, McSherry, Mironov, Naor", 2006,
                       "Our Data, Ourselves: Privacy via Distributed Noise Generation", "EUROCRYPT 2006",
                       all_authors=True),
    "dwork2016concentrated": _r("Dwork, Rothblum", 2016, "Concentrated Differential Privacy", "arXiv preprint",
                                "1603.01887"),
    "vadhan2017complexity": _r("Vadhan", 2017, "The Complexity of Differential Privacy",
                               "Tutorials on the Foundations of Cryptography, Springer"),
    "warner1965randomized": _r("Warner", 1965, "Randomized Response: A Survey Technique for Eliminating Evasive "
                               "Answer Bias", "Journal of the American Statistical Association 60(309)"),
    "ghosh2012universally": _r("Ghosh, Roughgarden, Sundararajan", 2012,
                               "Universally Utility-Maximizing Privacy Mechanisms", "SIAM Journal on Computing 41(6)"),
    "dwork2010boosting": _r("Dwork, Rothblum, Vadhan", 2010, "Boosting and Differential Privacy", "FOCS 2010"),
    "kairouz2015composition": _r("Kairouz, Oh, Viswanath", 2015, "The Composition Theorem for Differential Privacy",
                                 "ICML 2015", "1311.0776"),
    "mcsherry2007mechanism": _r("McSherry, Talwar", 2007, "Mechanism Design via Differential Privacy", "FOCS 2007"),
    "mcsherry2009privacy": _r("McSherry", 2009, "Privacy Integrated Queries: An Extensible Platform for "
                              "Privacy-Preserving Data Analysis", "SIGMOD 2009"),
    "liu2019private": _r("Liu, Talwar", 2019, "Private Selection from Private Candidates", "STOC 2019"),
    "li2012sampling": _r("Li, Qardaji, Su", 2012, "On Sampling, Anonymization, and Differential Privacy, or, "
                         "k-Anonymization Meets Differential Privacy", "ASIACCS 2012"),
    "kasiviswanathan2014semantics": _r("Kasiviswanathan, Smith", 2014,
                                       "On the 'Semantics' of Differential Privacy: A Bayesian Formulation",
                                       "Journal of Privacy and Confidentiality 6(1)", "0803.3946"),
    # -- Gaussian mechanism, Rényi and concentrated DP, f-DP ------------------------------------------------------
    "balle2018gaussian": _r("Balle, Wang", 2018, "Improving the Gaussian Mechanism for Differential Privacy: "
                            "Analytical Calibration and Optimal Denoising", "ICML 2018", "1805.06530"),
    "balle2018subsampling": _r("Balle, Barthe, Gaboardi", 2018, "Privacy Amplification by Subsampling: Tight Analyses "
                               "via Couplings and Divergences", "NeurIPS 2018", "1807.01647"),
    "balle2020hypothesis": _r("Balle, Barthe, Gaboardi, Hsu, Sato", 2020, "Hypothesis Testing Interpretations and "
                              "Renyi Differential Privacy", "AISTATS 2020", "1905.09982"),
    "bun2016concentrated": _r("Bun, Steinke", 2016, "Concentrated Differential Privacy: Simplifications, Extensions, "
                              "and Lower Bounds", "TCC 2016-B", "1605.02065"),
    "canonne2020discrete": _r("Canonne, Kamath, Steinke", 2020, "The Discrete Gaussian for Differential Privacy",
                              "NeurIPS 2020", "2004.00010"),
    "dong2022gaussian": _r("Dong, Roth, Su", 2022, "Gaussian Differential Privacy",
                           "Journal of the Royal Statistical Society Series B 84(1)", "1905.02383"),
    "mironov2017renyi": _r("Mironov", 2017, "Rényi Differential Privacy", "CSF 2017", "1702.07476"),
    "mironov2019sampled": _r("Mironov, Talwar, Zhang", 2019, "Rényi Differential Privacy of the Sampled Gaussian "
                             "Mechanism", "arXiv preprint", "1908.10530"),
    "zhu2022characteristic": _r("Zhu, Dong, Wang", 2022, "Optimal Accounting of Differential Privacy via "
                                "Characteristic Function", "AISTATS 2022", "2106.08567"),
    # -- privacy loss distributions ------------------------------------------------------------------------------
    "meiser2018tight": _r("Meiser, Mohammadi", 2018, "Tight on Budget? Tight Bounds for r-Fold Approximate "
                          "Differential Privacy", "CCS 2018"),
    "doroshenko2022connect": _r("Doroshenko, Ghazi, Kamath, Kumar, Manurangsi", 2022, "Connect the Dots: Tighter "
                                "Discrete Approximations of Privacy Loss Distributions", "PoPETs 2022", "2207.04380"),
    "koskela2020fft": _r("Koskela, Jälkö, Honkela", 2020, "Computing Tight Differential Privacy Guarantees Using FFT",
                         "AISTATS 2020", "1906.03049"),
    "sommer2019privacy": _r("Sommer, Meiser, Mohammadi", 2019, "Privacy Loss Classes: The Central Limit Theorem in "
                            "Differential Privacy", "PoPETs 2019"),
    "koskela2021tight": _r("Koskela, Jälkö, Prediger, Honkela", 2021, "Tight Differential Privacy for Discrete-Valued "
                           "Mechanisms and for the Subsampled Gaussian Mechanism Using FFT", "AISTATS 2021"),
    "erven2014renyi": _r("van Erven, Harremoës", 2014, "Rényi Divergence and Kullback–Leibler Divergence",
                         "IEEE Transactions on Information Theory 60(7)"),
    "bun2018composable": _r("Bun, Dwork, Rothblum, Steinke", 2018, "Composable and Versatile Privacy via Truncated CDP",
                            "STOC 2018"),
    # -- user-level and partial DP, learning and estimation --------------------------------------------------------
    "beimel2019characterizing": _r("Beimel, Nissim, Stemmer", 2019, "Characterizing the Sample Complexity of Pure "
                                   "Private Learners", "Journal of Machine Learning Research 20"),
    "feldman2017generalization": _r("Feldman, Steinke", 2017, "Generalization for Adaptively-chosen Estimators via "
                                    "Stable Median", "COLT 2017 (PMLR 65)"),
    "bassily2019private": _r("Bassily, Feldman, Talwar, Thakurta", 2019, "Private Stochastic Convex Optimization with "
                             "Optimal Rates", "NeurIPS 2019"),
    "zhang2016privtree": _r("Zhang, Xiao, Xie", 2016, "PrivTree: A Differentially Private Algorithm for Hierarchical "
                            "Decompositions", "SIGMOD 2016"),
    "duchi2008efficient": _r("Duchi, Shalev-Shwartz, Singer, Chandra", 2008, "Efficient Projections onto the "
                             "l1-Ball for Learning in High Dimensions", "ICML 2008"),
    "abowd2022topdown": _r("Abowd, Ashmead, Cumings-Menon, Garfinkel, Heineck, Heiss, Johns, Kifer, Leclerc, "
                           "Machanavajjhala, Moran, Sexton, Spence, Zhuravlev", 2022, "The 2020 Census Disclosure "
                           "Avoidance System TopDown Algorithm", "Harvard Data Science Review, Special Issue 2"),
    "desfontaines2021demystifying": _r("Desfontaines", 2021, "Demystifying the US Census Bureau's Reconstruction "
                                       "Attack", "blog post, desfontain.es"),
    "dwork2009differential": _r("Dwork, Lei", 2009, "Differential Privacy and Robust Statistics", "STOC 2009"),
    "mcmahan2018learning": _r("McMahan, Ramage, Talwar, Zhang", 2018, "Learning Differentially Private Recurrent "
                              "Language Models", "ICLR 2018", "1710.06963"),
    # -- foundations: attacks, counting, local DP, choosing ε (lessons 01, 02, 09) -------------------------------------
    "dinur2003revealing": _r("Dinur, Nissim", 2003, "Revealing Information while Preserving Privacy", "PODS 2003"),
    "dwork2017exposed": _r("Dwork, Smith, Steinke, Ullman", 2017, "Exposed! A Survey of Attacks on Private Data",
                           "Annual Review of Statistics and Its Application 4"),
    "homer2008resolving": _r("Homer, Szelinger, Redman, Duggan, Tembe, Muehling, Pearson, Stephan, Nelson, Craig",
                             2008, "Resolving Individuals Contributing Trace Amounts of DNA to Highly Complex "
                             "Mixtures Using High-Density SNP Genotyping Microarrays", "PLoS Genetics 4(8)"),
    "shokri2017membership": _r("Shokri, Stronati, Song, Shmatikov", 2017, "Membership Inference Attacks against "
                               "Machine Learning Models", "IEEE S&P 2017", "1610.05820"),
    "sweeney2002kanonymity": _r("Sweeney", 2002, "k-Anonymity: A Model for Protecting Privacy",
                                "International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems 10(5)"),
    "narayanan2008robust": _r("Narayanan, Shmatikov", 2008, "Robust De-anonymization of Large Sparse Datasets",
                              "IEEE S&P 2008"),
    "near2021programming": _r("Near, Abuah", 2021, "Programming Differential Privacy", "online book, "
                              "programming-dp.com"),
    "hay2010boosting": _r("Hay, Rastogi, Miklau, Suciu", 2010, "Boosting the Accuracy of Differentially Private "
                          "Histograms Through Consistency", "PVLDB 3(1)", "0904.0942"),
    "kasiviswanathan2011what": _r("Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith", 2011, "What Can We Learn "
                                  "Privately?", "SIAM Journal on Computing 40(3)", "0803.0924"),
    "wang2017locally": _r("Wang, Blocki, Li, Jha", 2017, "Locally Differentially Private Protocols for Frequency "
                          "Estimation", "26th USENIX Security Symposium"),
    "bassily2015local": _r("Bassily, Smith", 2015, "Local, Private, Efficient Protocols for Succinct Histograms",
                           "STOC 2015", "1504.04686"),
    "duchi2013local": _r("Duchi, Jordan, Wainwright", 2013, "Local Privacy and Statistical Minimax Rates",
                         "FOCS 2013", "1302.3203"),
    "erlingsson2014rappor": _r("Erlingsson, Pihur, Korolova", 2014, "RAPPOR: Randomized Aggregatable "
                               "Privacy-Preserving Ordinal Response", "CCS 2014", "1407.6981"),
    "wasserman2010statistical": _r("Wasserman, Zhou", 2010, "A Statistical Framework for Differential Privacy",
                                   "Journal of the American Statistical Association 105(489)", "0811.2501"),
    "hsu2014economic": _r("Hsu, Gaboardi, Haeberlen, Khanna, Narayan, Pierce, Roth", 2014, "Differential Privacy: "
                          "An Economic Method for Choosing Epsilon", "CSF 2014", "1402.3329"),
    "lee2011how": _r("Lee, Clifton", 2011, "How Much Is Enough? Choosing ε for Differential Privacy", "ISC 2011"),
    "dwork2019expose": _r("Dwork, Kohli, Mulligan", 2019, "Differential Privacy in Practice: Expose your Epsilons!",
                          "Journal of Privacy and Confidentiality 9(2)"),
    "apple2017learning": _r("Apple", 2017, "Learning with Privacy at Scale",
                            "Apple Machine Learning Journal 1(8), by Apple's Differential Privacy Team"),
    "tang2017privacy": _r("Tang, Korolova, Bai, Wang, Wang", 2017, "Privacy Loss in Apple's Implementation of "
                          "Differential Privacy on MacOS 10.12", "arXiv preprint", "1709.02753"),
    "ding2017collecting": _r("Ding, Kulkarni, Yekhanin", 2017, "Collecting Telemetry Data Privately",
                             "NeurIPS 2017", "1712.01524"),
    "aktay2020google": _r("Aktay, Bavadekar, Cossoul, Davis, Desfontaines, Fabrikant, Gabrilovich, Gadepalli, "
                          "Gipson, Guevara, Kamath, Kansal, Lange, Mandayam, Oplinger, Pluntke, Roessler, Schlosberg, "
                          "Shekel, Vispute, Vu, Wellenius, Williams, Wilson", 2020, "Google COVID-19 Community "
                          "Mobility Reports: Anonymization Process Description (version 1.1)", "arXiv preprint",
                          "2004.04145"),
    "rogers2021linkedin": _r("Rogers, Subramaniam, Peng, Durfee, Lee, Kancha, Sahay, Ahammad", 2021, "LinkedIn's "
                             "Audience Engagements API: A Privacy Preserving Data Analytics System at Scale",
                             "Journal of Privacy and Confidentiality 11(3)", "2002.05839"),
    "adeleye2023wikipedia": _r("Adeleye, Berghel, Desfontaines, Hay, Johnson, Lemoisson, Machanavajjhala, "
                               "Magerlein, Modena, Pujol, Simmons-Marengo, Triedman", 2023, "Publishing Wikipedia "
                               "Usage Data with Strong Privacy Guarantees", "arXiv preprint", "2308.16298"),
    # -- selection, DP-SGD and auditing (lessons 04, 10) ------------------------------------------------------------
    "mckenna2020permute": _r("McKenna, Sheldon", 2020, "Permute-and-Flip: A New Mechanism for Differentially Private "
                             "Selection", "NeurIPS 2020", "2010.12603"),
    "ding2021permute": _r("Ding, Kifer, Saghaian, Steinke, Wang, Xiao, Zhang", 2021, "The Permute-and-Flip "
                          "Mechanism is Identical to Report-Noisy-Max with Exponential Noise", "arXiv preprint",
                          "2105.07260"),
    "lyu2017understanding": _r("Lyu, Su, Li", 2017, "Understanding the Sparse Vector Technique for Differential "
                               "Privacy", "PVLDB 10(6)", "1603.01699"),
    "abadi2016deep": _r("Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang", 2016, "Deep Learning with "
                        "Differential Privacy", "CCS 2016", "1607.00133"),
    "jagielski2020auditing": _r("Jagielski, Ullman, Oprea", 2020, "Auditing Differentially Private Machine "
                                "Learning: How Private is Private SGD?", "NeurIPS 2020", "2006.07709"),
    "nasr2021adversary": _r("Nasr, Song, Thakurta, Papernot, Carlini", 2021, "Adversary Instantiation: Lower Bounds "
                            "for Differentially Private Machine Learning", "IEEE S&P 2021", "2101.04535"),
    "clopper1934use": _r("Clopper, Pearson", 1934, "The Use of Confidence or Fiducial Limits Illustrated in the Case "
                         "of the Binomial", "Biometrika 26(4)"),
    # -- what DP does and does not promise, local DP, auditing practice (lessons 01, 02, 09, 10) ----------------------
    "kifer2011nofree": _r("Kifer, Machanavajjhala", 2011, "No Free Lunch in Data Privacy", "SIGMOD 2011"),
    "kairouz2014extremal": _r("Kairouz, Oh, Viswanath", 2014, "Extremal Mechanisms for Local Differential Privacy",
                              "NeurIPS 2014", "1407.1338"),
    "nasr2023tight": _r("Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini, Terzis", 2023, "Tight Auditing of "
                        "Differentially Private Machine Learning", "32nd USENIX Security Symposium", "2302.07956"),
    "steinke2023privacy": _r("Steinke, Nasr, Jagielski", 2023, "Privacy Auditing with One (1) Training Run",
                             "NeurIPS 2023", "2305.08846"),
    "chua2024how": _r("Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang", 2024, "How Private are DP-SGD "
                      "Implementations?", "ICML 2024", "2403.17673"),
    "papernot2022hyperparameter": _r("Papernot, Steinke", 2022, "Hyperparameter Tuning with Renyi Differential "
                                     "Privacy", "ICLR 2022", "2110.03620"),
    "dwork2010continual": _r("Dwork, Naor, Pitassi, Rothblum", 2010, "Differential Privacy under Continual "
                             "Observation", "STOC 2010"),
    "alon2019private": _r("Alon, Livni, Malliaris, Moran", 2019, "Private PAC Learning Implies Finite Littlestone "
                          "Dimension", "STOC 2019", "1806.00949"),
    "bun2020equivalence": _r("Bun, Livni, Moran", 2020, "An Equivalence Between Private Classification and Online "
                             "Prediction", "FOCS 2020", "2003.00563"),
    "mironov2012significance": _r("Mironov", 2012, "On Significance of the Least Significant Bits for Differential "
                                  "Privacy", "CCS 2012"),
    "sweeney2000simple": _r("Sweeney", 2000, "Simple Demographics Often Identify People Uniquely",
                            "Carnegie Mellon University, Data Privacy Working Paper 3"),
    "ponomareva2023dpfy": _r("Ponomareva, Hazimeh, Kurakin, Xu, Denison, McMahan, Vassilvitskii, Chien, Thakurta",
                             2023, "How to DP-fy ML: A Practical Guide to Machine Learning with Differential Privacy",
                             "Journal of Artificial Intelligence Research 77", "2303.00654"),
    "lebeda2024avoiding": _r("Lebeda, Regehr, Kamath, Steinke", 2024, "Avoiding Pitfalls for Privacy Accounting of "
                             "Subsampled Mechanisms under Composition", "arXiv preprint", "2405.20769"),
    "stoddard2014differentially": _r("Stoddard, Chen, Machanavajjhala", 2014, "Differentially Private Algorithms for "
                                     "Empirical Machine Learning", "arXiv preprint", "1411.5428"),
    "machanavajjhala2007diversity": _r("Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam", 2007, "ℓ-Diversity: "
                                       "Privacy Beyond k-Anonymity", "ACM Transactions on Knowledge Discovery from "
                                       "Data 1(1)"),
    "ganta2008composition": _r("Ganta, Kasiviswanathan, Smith", 2008, "Composition Attacks and Auxiliary "
                               "Information in Data Privacy", "KDD 2008", "0803.0032"),
    "rogers2016privacy": _r("Rogers, Roth, Ullman, Vadhan", 2016, "Privacy Odometers and Filters: Pay-as-you-Go "
                            "Composition", "NeurIPS 2016", "1605.08294"),
    # -- beyond global sensitivity, releasing many answers (the first course's later lessons) ------------------------
    "nissim2007smooth": _r("Nissim, Raskhodnikova, Smith", 2007, "Smooth Sensitivity and Sampling in Private Data "
                           "Analysis", "STOC 2007"),
    "smith2011privacy": _r("Smith", 2011, "Privacy-Preserving Statistical Estimation with Optimal Convergence Rates",
                           "STOC 2011"),
    "hardt2012simple": _r("Hardt, Ligett, McSherry", 2012, "A Simple and Practical Algorithm for Differentially "
                          "Private Data Release", "NeurIPS 2012", "1012.4763"),
    # -- optimisation ----------------------------------------------------------------------------------------------
    "bubeck2015convex": _r("Bubeck", 2015, "Convex Optimization: Algorithms and Complexity",
                           "Foundations and Trends in Machine Learning 8(3–4)", "1405.4980"),
    "kulunchakov2020estimate": _r("Kulunchakov, Mairal", 2020, "Estimate Sequences for Stochastic Composite "
                                  "Optimization: Variance Reduction, Acceleration, and Robustness to Noise",
                                  "Journal of Machine Learning Research 21"),
    "lacoste2012simpler": _r("Lacoste-Julien, Schmidt, Bach", 2012, "A Simpler Approach to Obtaining an O(1/t) "
                             "Convergence Rate for the Projected Stochastic Subgradient Method", "arXiv preprint"),
    "davis2019stochastic": _r("Davis, Drusvyatskiy", 2019, "Stochastic Model-Based Minimization of Weakly Convex "
                              "Functions", "SIAM Journal on Optimization 29(1)"),
    # -- numerical methods, sampling and plotting ---------------------------------------------------------------------
    "abramowitz1964handbook": _r("Abramowitz, Stegun", 1964, "Handbook of Mathematical Functions",
                                 "National Bureau of Standards, Applied Mathematics Series 55"),
    "trefethen2014trapezoidal": _r("Trefethen, Weideman", 2014, "The Exponentially Convergent Trapezoidal Rule",
                                   "SIAM Review 56(3)"),
    "loader2000binomial": _r("Loader", 2000, "Fast and Accurate Computation of Binomial Probabilities",
                             "technical report"),
    "chambers1976stable": _r("Chambers, Mallows, Stuck", 1976, "A Method for Simulating Stable Random Variables",
                             "Journal of the American Statistical Association 71(354)"),
    "okabe2008cud": _r("Okabe, Ito", 2008, "Color Universal Design (CUD): How to Make Figures and Presentations "
                       "that Are Friendly to Colorblind People", "J*FLY"),
    "brent1973algorithms": _r("Brent", 1973, "Algorithms for Minimization without Derivatives", "Prentice-Hall"),
    "anderson1973high": _r("Anderson, Björck", 1973, "A New High Order Method of Regula Falsi Type for Computing a "
                           "Root of an Equation", "BIT 13"),
    "dowell1971illinois": _r("Dowell, Jarratt", 1971, "A Modified Regula Falsi Method for Computing the Root of an "
                             "Equation", "BIT 11"),
}


def label(key: str) -> str:
    """The short form of a reference: ``label("balle2018gaussian") == "Balle & Wang 2018"``."""
    try:
        return REFERENCES[key].label
    except KeyError:
        raise ValueError(f"reference = {key!r} is not allowed: must be a key of dpviz.references.REFERENCES") from None


def cite(key: str, where: str | None = None) -> str:
    """A citation in the house style: ``cite("ghazi2023few", "Lemma 6") == "Ghazi et al. 2023, Lemma 6"``."""
    return label(key) if not where else f"{label(key)}, {where}"
